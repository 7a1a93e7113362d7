/* make_seeds.c - writes the synthetic seeds of fuzz/seeds/NAME/: a few
 * hand-built documents encoded by each plugin's own writer (no game data).
 * fuzz/run.sh builds it as $AK_FUZZ_DIR/bin/make_seeds; run it with the
 * seeds folder as argument to regenerate them. */
#include "fuzz_common.h"

#include <errno.h>
#include <sys/stat.h>

static ak_doc *build(int clips, int tracks, int keys, int channels)
{
    ak_doc *doc = ak_doc_new();
    if (!doc)
        abort();
    for (int c = 0; c < clips; c++) {
        char name[32];
        snprintf(name, sizeof name, "clip%d", c);
        ak_clip *clip = ak_clip_add(doc, name);
        clip->duration = keys > 1 ? (keys - 1) / 30.0 : 0.0;
        clip->frame_rate = 30.0;
        for (int t = 0; t < tracks; t++) {
            snprintf(name, sizeof name, "Bone%02d", t);
            ak_track *tr = ak_track_add(clip, name);
            tr->bone_id = t;
            tr->has_bone_id = 1;
            tr->bone_hash = ak_crc32(name, strlen(name));
            tr->has_bone_hash = 1;
            for (int ch = 0; ch < channels; ch++)
                for (int k = 0; k < keys; k++) {
                    ak_key *key = ak_key_add(tr, (ak_channel_kind)ch);
                    key->time = k / 30.0;
                    key->tick = k;
                    double a = 0.1 * (k + t);
                    if (ch == AK_ROTATION) {
                        key->v[0] = 0.0;
                        key->v[1] = a / 4;
                        key->v[2] = 0.0;
                        key->v[3] = 1.0;
                        double n = key->v[1] * key->v[1] + 1.0;
                        for (int i = 0; i < 4; i++)
                            key->v[i] /= __builtin_sqrt(n);
                    } else if (ch == AK_VISIBILITY) {
                        key->v[0] = k % 2;
                    } else {
                        key->v[0] = ch == AK_SCALE ? 1.0 : a;
                        key->v[1] = ch == AK_SCALE ? 1.0 + a : 0.5;
                        key->v[2] = ch == AK_SCALE ? 1.0 : -a;
                    }
                }
        }
        if (keys > 1)
            ak_event_add(clip, clip->duration / 2, "sound", "step");
    }
    return doc;
}

/* The same file as the json plugin holds it (format-specific props and
 * stored key bytes included), for fuzz_json and fuzz_probe_all. */
static void json_of(const ak_registry *reg, const char *seeds, const char *format, const char *name,
                    const unsigned char *bytes, size_t size)
{
    if (!ak_registry_find(reg, "json") || strcmp(format, "json") == 0)
        return;
    ak_options r = { sizeof r, format, NULL, NULL, 0, 0 };
    ak_options w = { sizeof w, "json", NULL, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_doc *doc = NULL;
    unsigned char *out = NULL;
    size_t n = 0;
    if (ak_read(reg, bytes, size, &r, &doc, &rep) == AK_OK && ak_write(reg, doc, &w, &out, &n, &rep) == AK_OK) {
        char path[4200];
        snprintf(path, sizeof path, "%s/json/from-%s-%s.json", seeds, format, name);
        FILE *fp = fopen(path, "wb");
        if (fp) {
            fwrite(out, 1, n, fp);
            fclose(fp);
            printf("%s: %zu bytes\n", path, n);
        }
    }
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SEEDS-FOLDER\n", argv[0]);
        return 64;
    }
    ak_registry *reg = fuzz_registry();
    static const struct { const char *name; int clips, tracks, keys, channels; } docs[] = {
        { "one-key", 1, 1, 1, 1 },
        { "walk", 1, 3, 5, 2 },
        { "scaled", 1, 2, 4, 3 },
        { "visible", 1, 2, 3, 4 },
        { "empty-tracks", 1, 2, 0, 1 },
        { "three-clips", 3, 2, 3, 2 },
    };
    for (size_t i = 0; i < ak_registry_count(reg); i++) {
        const ak_codec *c = ak_registry_plugin(reg, i)->codec;
        if (!c->write)
            continue;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", argv[1], c->name);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            perror(dir);
            return 73;
        }
        for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
            if (docs[d].clips > 1 && !(c->caps & AK_CAP_MULTI_CLIP))
                continue;
            ak_doc *doc = build(docs[d].clips, docs[d].tracks, docs[d].keys, docs[d].channels);
            ak_options o = { sizeof o, c->name, NULL, NULL, 0, 0 };
            ak_report rep;
            memset(&rep, 0, sizeof rep);
            unsigned char *bytes = NULL;
            size_t n = 0;
            if (ak_write(reg, doc, &o, &bytes, &n, &rep) == AK_OK) {
                char path[4200];
                snprintf(path, sizeof path, "%s/%s.%s", dir, docs[d].name, c->name);
                FILE *fp = fopen(path, "wb");
                if (!fp || fwrite(bytes, 1, n, fp) != n || fclose(fp) != 0) {
                    perror(path);
                    return 74;
                }
                printf("%s: %zu bytes\n", path, n);
                json_of(reg, argv[1], c->name, docs[d].name, bytes, n);
            } else {
                printf("%s/%s: not written: %s\n", c->name, docs[d].name, rep.message);
            }
            ak_buffer_free(reg, bytes);
            ak_doc_free(doc);
        }
    }
    ak_registry_free(reg);
    return 0;
}
