/*
 * host.c - the smallest useful host: build a registry once, read a file
 * from memory, print a summary.
 *
 *     cc host.c $(pkg-config --cflags --libs animkit) -o host
 *     ./host walk.ifp
 */
#include <animkit/animkit.h>

#include <stdio.h>
#include <stdlib.h>

static unsigned char *load(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    unsigned char *buf = NULL;
    long n = -1;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0)
        buf = malloc(n ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *size = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: host FILE\n");
        return 64;
    }
    ak_report report = { 0 };
    ak_registry *reg;
    /* NULL config: the same search order as the animkit command. */
    ak_status st = ak_registry_open(NULL, &reg, &report);
    if (st != AK_OK) {
        fprintf(stderr, "host: %s\n", report.message);
        return ak_status_exit(st);
    }
    size_t size;
    unsigned char *bytes = load(argv[1], &size);
    if (!bytes) {
        fprintf(stderr, "host: cannot read %s\n", argv[1]);
        ak_registry_free(reg);
        return 66;
    }
    ak_options options = { sizeof options, NULL, argv[1], NULL, 0, 0 };
    ak_doc *doc;
    st = ak_read(reg, bytes, size, &options, &doc, &report);
    free(bytes);
    if (st != AK_OK) {
        fprintf(stderr, "host: %s\n", report.message);
        ak_registry_free(reg);
        return ak_status_exit(st);
    }
    ak_doc_stats stats;
    ak_doc_stats_get(doc, &stats);
    printf("%s: format %s %s, %zu clips, %zu tracks, %zu rotation keys, %zu translation keys\n", argv[1],
           doc->format, doc->variant, stats.clips, stats.tracks, stats.keys[AK_ROTATION],
           stats.keys[AK_TRANSLATION]);
    for (size_t i = 0; i < doc->clip_count && i < 5; i++)
        printf("  %s: %.3f s, %zu tracks\n", doc->clips[i]->name, doc->clips[i]->duration,
               doc->clips[i]->track_count);
    ak_doc_free(doc);
    ak_registry_free(reg);
    return 0;
}
