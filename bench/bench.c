/*
 * bench.c - how fast animkit reads and writes real files. Prints, per
 * file: size, keys, read and write throughput (best of N rounds), and
 * whether the same-format write is byte-identical.
 *
 *     animkit-bench [-n ROUNDS] FILE...
 */
#include <animkit/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const ak_codec *ifp_codec(void);
const ak_codec *ani_codec(void);
const ak_codec *anm_codec(void);
const ak_codec *mab_codec(void);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench_file(const ak_registry *reg, const char *path, int rounds)
{
    ak_mapped_file f;
    ak_report rep = { 0 };
    if (ak_file_map(path, &f, &rep) != AK_OK) {
        printf("%s: %s\n", path, rep.message);
        return;
    }
    ak_options o = { sizeof o, NULL, path, NULL, 0, 0 };
    double best_read = 1e30, best_write = 1e30;
    size_t keys = 0, out_size = 0;
    int identical = -1;
    const char *format = "?";
    for (int r = 0; r < rounds; r++) {
        ak_doc *doc;
        ak_report rr = { 0 };
        double t0 = now();
        if (ak_read(reg, f.data, f.size, &o, &doc, &rr) != AK_OK) {
            printf("%s: %s\n", path, rr.message);
            ak_file_unmap(&f);
            return;
        }
        double t1 = now();
        if (t1 - t0 < best_read)
            best_read = t1 - t0;
        ak_doc_stats s;
        ak_doc_stats_get(doc, &s);
        keys = s.keys[0] + s.keys[1] + s.keys[2] + s.keys[3];
        format = ak_registry_find(reg, doc->format)->codec->name;
        if (ak_registry_find(reg, doc->format)->codec->write) {
            unsigned char *out;
            ak_report wr = { 0 };
            ak_options w = { sizeof w, doc->format, NULL, NULL, 0, 0 };
            double t2 = now();
            if (ak_write(reg, doc, &w, &out, &out_size, &wr) == AK_OK) {
                double t3 = now();
                if (t3 - t2 < best_write)
                    best_write = t3 - t2;
                identical = out_size == f.size && memcmp(out, f.data, f.size) == 0;
                ak_buffer_free(reg, out);
            }
        }
        ak_doc_free(doc);
    }
    double mb = f.size / 1e6;
    printf("%-48s %-4s %9zu B %8zu keys  read %8.1f MB/s %6.2f Mkeys/s", path, format, f.size, keys,
           mb / best_read, keys / best_read / 1e6);
    if (identical >= 0)
        printf("  write %8.1f MB/s  %s\n", mb / best_write, identical ? "byte-identical" : "DIFFERS");
    else
        printf("  (read-only format)\n");
    ak_file_unmap(&f);
}

int main(int argc, char **argv)
{
    int rounds = 5, first = 1;
    if (argc > 2 && !strcmp(argv[1], "-n")) {
        rounds = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || rounds < 1) {
        fprintf(stderr, "usage: animkit-bench [-n ROUNDS] FILE...\n");
        return 64;
    }
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, NULL, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    if (ak_registry_open(&cfg, &reg, &rep) != AK_OK)
        return 70;
    const ak_codec *codecs[] = { ifp_codec(), ani_codec(), anm_codec(), mab_codec() };
    for (size_t i = 0; i < 4; i++)
        ak_registry_add_codec(reg, codecs[i], 0, &rep);
    printf("animkit %s, best of %d rounds\n", ak_version(), rounds);
    for (int i = first; i < argc; i++)
        bench_file(reg, argv[i], rounds);
    ak_registry_free(reg);
    return 0;
}
