/* commands.c - the CLI's commands. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static int need_args(cli *c, int min, int max, const char *usage)
{
    if (c->arg_count < min || (max >= 0 && c->arg_count > max)) {
        fprintf(stderr, "animkit: usage: animkit %s\n", usage);
        return EX_USAGE;
    }
    return 0;
}

static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

void cli_json_string(const char *s) { json_string(s); }

int cmd_formats(cli *c)
{
    int rc = need_args(c, 0, 1, "formats [--json] [-v] [NAME]");
    if (rc)
        return rc;
    const char *only = c->arg_count ? c->args[0] : NULL;
    if (only && !ak_registry_find(c->reg, only)) {
        fprintf(stderr, "animkit: no plugin named '%s' is loaded\n", only);
        return EX_USAGE;
    }
    size_t n = ak_registry_count(c->reg), r = ak_registry_refused_count(c->reg);
    const char *cfg = ak_registry_config_path(c->reg);
    if (c->json) {
        printf("{\"animkit\":1,\"config\":");
        if (cfg)
            json_string(cfg);
        else
            printf("null");
        printf(",\"plugins\":[");
        int listed = 0;
        for (size_t i = 0; i < n; i++) {
            const ak_plugin_info *p = ak_registry_plugin(c->reg, i);
            const ak_codec *k = p->codec;
            if (only && strcmp(only, k->name) != 0)
                continue;
            printf("%s\n {\"name\":", listed++ ? "," : "");
            json_string(k->name);
            printf(",\"version\":");
            json_string(k->version);
            printf(",\"abi\":\"%u.%u\",\"extensions\":", k->abi_major, k->abi_minor);
            json_string(k->extensions);
            printf(",\"read\":%s,\"write\":%s,\"priority\":%d,\"license\":", k->read ? "true" : "false",
                   k->write ? "true" : "false", p->priority);
            json_string(k->license);
            printf(",\"description\":");
            json_string(k->description);
            printf(",\"file\":");
            json_string(p->path);
            cli_print_params_json(k);
            printf("}");
        }
        printf("],\n\"refused\":[");
        for (size_t i = 0; i < r && !only; i++) {
            const ak_refused_plugin *p = ak_registry_refused(c->reg, i);
            printf("%s\n {\"name\":", i ? "," : "");
            json_string(p->name);
            printf(",\"file\":");
            json_string(p->path);
            printf(",\"reason\":");
            json_string(p->reason);
            printf("}");
        }
        printf("]}\n");
        return 0;
    }
    printf("config: %s\n", cfg ? cfg : "(built-in default)");
    printf("%-10s %-8s %-5s %-12s %-4s %s\n", "NAME", "VERSION", "ABI", "EXTENSIONS", "R/W", "FILE");
    for (size_t i = 0; i < n; i++) {
        const ak_plugin_info *p = ak_registry_plugin(c->reg, i);
        const ak_codec *k = p->codec;
        if (only && strcmp(only, k->name) != 0)
            continue;
        printf("%-10s %-8s %u.%-3u %-12s %c%c   %s\n", k->name, k->version, k->abi_major, k->abi_minor,
               k->extensions, k->read ? 'r' : '-', k->write ? 'w' : '-', p->path);
        if (c->verbose) {
            printf("           %s (%s, priority %d)\n", k->description, k->license, p->priority);
            cli_print_params(k);
        }
    }
    if (r && !only) {
        printf("\nrefused:\n");
        for (size_t i = 0; i < r; i++) {
            const ak_refused_plugin *p = ak_registry_refused(c->reg, i);
            printf("  %s (%s): %s\n", p->name, p->path, p->reason);
        }
    }
    return 0;
}

int cmd_probe(cli *c)
{
    int rc = need_args(c, 1, -1, "probe FILE...");
    if (rc)
        return rc;
    for (int i = 0; i < c->arg_count; i++) {
        ak_report rep = { 0 };
        ak_mapped_file f = { 0 };
        const int piped = cli_is_stdio(c->args[i]);
        ak_status st = AK_OK;
        if (piped) {
            int taken = cli_stdin_bytes(&f.data, &f.size);
            if (taken) {
                rc = cli_worse(rc, taken);
                continue;
            }
        } else {
            st = ak_file_map(c->args[i], &f, &rep);
        }
        if (st == AK_OK) {
            ak_probe_result pr;
            /* Standard input has no name: its bytes alone decide. */
            st = ak_probe(c->reg, f.data, f.size, piped ? NULL : c->args[i], &pr, &rep);
            if (st == AK_OK) {
                cli_put_text(stdout, c->args[i]);
                printf(": %s (score %d)\n", pr.codec->name, pr.score);
            }
            if (!piped)
                ak_file_unmap(&f);
        }
        if (st != AK_OK) {
            cli_put_text(stdout, c->args[i]);
            printf(": ");
            cli_put_text(stdout, rep.text);
            printf("\n");
            rc = cli_worse(rc, ak_status_exit(st));
        }
    }
    return rc;
}

static void print_clip_props(const ak_clip *clip)
{
    for (size_t i = 0; i < clip->props.count; i++) {
        const ak_prop *p = &clip->props.items[i];
        if (p->type == AK_PROP_INT)
            printf(" %s=%lld", p->key, (long long)p->i);
        else if (p->type == AK_PROP_STRING) {
            printf(" %s=", p->key);
            cli_put_text(stdout, (const char *)p->data);
        }
    }
}

/* Each clip's figures, and their sum in `total`: one walk over the tracks
 * instead of one for the file's totals and another for each clip's (the
 * tracks lie apart, between their keys: ped_cretaceous.ifp's 7,340 are a
 * cache miss each). NULL without memory for the table; `total` is right
 * either way, and the caller counts each clip as it prints it. */
static ak_doc_stats *all_clip_stats(const ak_doc *doc, ak_doc_stats *total)
{
    ak_doc_stats *per = doc->clip_count ? calloc(doc->clip_count, sizeof *per) : NULL;
    if (!per) {
        ak_doc_stats_get(doc, total);
        return NULL;
    }
    memset(total, 0, sizeof *total);
    for (size_t i = 0; i < doc->clip_count; i++) {
        ak_clip_stats_get(doc->clips[i], &per[i]);
        total->clips++;
        total->tracks += per[i].tracks;
        total->events += per[i].events;
        for (int k = 0; k < AK_CHANNELS; k++)
            total->keys[k] += per[i].keys[k];
        total->hashes += per[i].hashes;
        total->hashes_named += per[i].hashes_named;
    }
    return per;
}

static void clip_stats(const ak_doc_stats *per, const ak_clip *clip, size_t i, ak_doc_stats *out)
{
    if (per)
        *out = per[i];
    else
        ak_clip_stats_get(clip, out);
}

void info_text(const char *path, const ak_doc *doc, int verbose)
{
    ak_doc_stats s;
    ak_doc_stats *per = all_clip_stats(doc, &s);
    cli_put_text(stdout, path);
    printf(": ");
    cli_put_text(stdout, doc->format);
    printf("%s", doc->variant[0] ? " " : "");
    cli_put_text(stdout, doc->variant);
    printf(", %zu clip%s, %zu tracks, %zu keys, %zu events\n", s.clips, s.clips == 1 ? "" : "s", s.tracks,
           s.keys[0] + s.keys[1] + s.keys[2] + s.keys[3], s.events);
    if (s.hashes)
        printf("  bone hashes: %zu, resolved to names: %zu\n", s.hashes, s.hashes_named);
    for (size_t i = 0; i < doc->clip_count; i++) {
        const ak_clip *clip = doc->clips[i];
        ak_doc_stats cs;
        clip_stats(per, clip, i, &cs);
        printf("  clip \"");
        cli_put_text(stdout, clip->name);
        printf("\": %.4g s", clip->duration);
        if (clip->frame_rate > 0)
            printf(" at %.4g fps", clip->frame_rate);
        printf(", %zu tracks, keys:", cs.tracks);
        for (int k = 0; k < AK_CHANNELS; k++)
            if (cs.keys[k])
                printf(" %s %zu", ak_channel_name((ak_channel_kind)k), cs.keys[k]);
        printf(", %zu events", cs.events);
        int64_t mesh = ak_prop_int(&clip->props, AK_PROP_MESH_KEYS, 0);
        if (mesh > 0)
            printf(", mesh animation in %lld keys (kept opaque)", (long long)mesh);
        if (verbose)
            print_clip_props(clip);
        printf("\n");
        for (size_t e = 0; verbose && e < clip->event_count; e++) {
            printf("    event %.4g s: ", clip->events[e].time);
            cli_put_text(stdout, clip->events[e].type);
            printf(" ");
            cli_put_text(stdout, clip->events[e].info);
            printf("\n");
        }
        cli_skeleton_info_clip(doc, clip, verbose);
    }
    free(per);
    if (!doc->clip_count)
        cli_skeleton_tree(doc);
}

void info_json(const char *path, const ak_doc *doc, int first)
{
    ak_doc_stats s;
    ak_doc_stats *per = all_clip_stats(doc, &s);
    printf("%s{\"file\":", first ? "" : ",\n ");
    json_string(path);
    printf(",\"format\":");
    json_string(doc->format);
    printf(",\"variant\":");
    json_string(doc->variant);
    printf(",\"bone_hashes\":%zu,\"bone_hashes_named\":%zu,\"clips\":[", s.hashes, s.hashes_named);
    for (size_t i = 0; i < doc->clip_count; i++) {
        const ak_clip *clip = doc->clips[i];
        ak_doc_stats cs;
        clip_stats(per, clip, i, &cs);
        printf("%s{\"name\":", i ? "," : "");
        json_string(clip->name);
        printf(",\"duration\":");
        cli_json_double(clip->duration);
        printf(",\"frame_rate\":");
        cli_json_double(clip->frame_rate);
        printf(",\"tracks\":%zu,\"keys\":{", cs.tracks);
        for (int k = 0; k < AK_CHANNELS; k++)
            printf("%s\"%s\":%zu", k ? "," : "", ak_channel_name((ak_channel_kind)k), cs.keys[k]);
        printf("},\"events\":%zu,\"props\":{", cs.events);
        int firstp = 1;
        for (size_t p = 0; p < clip->props.count; p++) {
            const ak_prop *pr = &clip->props.items[p];
            if (pr->type != AK_PROP_INT)
                continue;
            printf("%s", firstp ? "" : ",");
            firstp = 0;
            json_string(pr->key);
            printf(":%lld", (long long)pr->i);
        }
        printf("}");
        cli_skeleton_info_json_clip(doc, clip);
        printf("}");
    }
    free(per);
    printf("]}");
}

/* Many files in one call: each document's memory is freed before the
 * next read. Keep it in the process instead of giving it back to the
 * kernel and faulting fresh pages in for every file (glibc's default
 * thresholds return blocks from 128 KiB up). */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int cmd_info(cli *c)
{
    int rc = need_args(c, 1, -1, "info FILE|FOLDER... [--json] [-r] [-j N]");
    if (rc)
        return rc;
    keep_freed_memory();
    c->outline = 1; /* counts, not keys: a plugin that reads outlines skips decoding them */
    return batch_info(c);
}

static void dump_channel(const ak_channel *ch, ak_channel_kind kind, int ticks)
{
    static const int width[AK_CHANNELS] = { 4, 3, 3, 1 };
    printf("      %s (%zu keys)\n", ak_channel_name(kind), ch->count);
    for (size_t k = 0; k < ch->count; k++) {
        const ak_key *key = &ch->keys[k];
        printf("        %10.5f", key->time);
        if (ticks)
            printf(" [%lld]", (long long)key->tick);
        for (int i = 0; i < width[kind]; i++)
            printf(" %12.7g", key->v[i]);
        printf("\n");
    }
}

int dump_text(const ak_doc *doc, const char *clip_name, int ticks)
{
    printf("format ");
    cli_put_text(stdout, doc->format);
    printf(" ");
    cli_put_text(stdout, doc->variant);
    printf("\n");
    for (size_t i = 0; i < doc->clip_count; i++) {
        const ak_clip *clip = doc->clips[i];
        if (clip_name && ak_doc_find_clip(doc, clip_name) != clip)
            continue;
        printf("clip \"");
        cli_put_text(stdout, clip->name);
        printf("\" duration %.6g s\n", clip->duration);
        for (size_t t = 0; t < clip->track_count; t++) {
            const ak_track *tr = clip->tracks[t];
            printf("  track \"");
            cli_put_text(stdout, tr->bone);
            printf("\"");
            if (tr->has_bone_id)
                printf(" id %ld", (long)tr->bone_id);
            if (tr->has_bone_hash)
                printf(" hash 0x%08lx", (unsigned long)tr->bone_hash);
            if (tr->weight != 1.0)
                printf(" weight %g", tr->weight);
            printf("\n");
            for (int k = 0; k < AK_CHANNELS; k++)
                if (tr->channel[k].count)
                    dump_channel(&tr->channel[k], (ak_channel_kind)k, ticks);
        }
        for (size_t e = 0; e < clip->event_count; e++) {
            printf("  event %.6g s type \"", clip->events[e].time);
            cli_put_text(stdout, clip->events[e].type);
            printf("\" info \"");
            cli_put_text(stdout, clip->events[e].info);
            printf("\"\n");
        }
    }
    cli_skeleton_tree(doc);
    return ferror(stdout) ? EX_IOERR : 0;
}

int cmd_dump(cli *c)
{
    int rc = need_args(c, 1, -1, "dump FILE|FOLDER... [--json] [--clip NAME]");
    if (rc)
        return rc;
    if (c->clip_count > 1) {
        fprintf(stderr, "animkit: dump takes one --clip\n");
        return EX_USAGE;
    }
    return batch_dump(c);
}

/* Keeps only the clips named by --clip (each name: its first match). */
static int select_clips(cli *c, ak_doc *doc, const char *path)
{
    if (!c->clip_count)
        return 0;
    unsigned char *keep = calloc(doc->clip_count + 1, 1);
    if (!keep)
        return EX_OSERR;
    for (int i = 0; i < c->clip_count; i++) {
        long k = ak_doc_clip_index(doc, c->clips[i]);
        if (k < 0) {
            fprintf(stderr, "animkit: ");
            cli_put_text(stderr, path);
            fprintf(stderr, ": no clip named '");
            cli_put_text(stderr, c->clips[i]);
            fprintf(stderr, "'\n");
            free(keep);
            return EX_DATAERR;
        }
        keep[k] = 1;
    }
    for (size_t k = doc->clip_count; k-- > 0;)
        if (!keep[k])
            ak_clip_remove(doc, k);
    free(keep);
    return 0;
}

int cmd_convert(cli *c)
{
    if (c->output || c->arg_count != 2)
        return cmd_batch_convert(c);
    int rc = need_args(c, 2, 2, "convert IN OUT [--to FORMAT] [--clip NAME]... [--force]");
    if (rc)
        return rc;
    const char *in = c->args[0], *out = c->args[1];
    ak_doc *doc;
    rc = cli_read(c, in, &doc, c->verbose);
    if (rc)
        return rc;
    rc = select_clips(c, doc, in);
    if (!rc) {
        ak_report rep = { 0 };
        rep.on_message = cli_print_message;
        ak_options o = { sizeof o, c->to, out, c->params, 0, 0 };
        if (cli_is_stdio(out))
            rc = cli_write_stdout(c, doc, &o);
        else
            rc = ak_status_exit(ak_write_file(c->reg, doc, out, &o, c->force ? AK_WRITE_OVERWRITE : 0, &rep));
    }
    ak_doc_free(doc);
    return rc;
}

int cmd_validate(cli *c)
{
    int rc = need_args(c, 1, -1, "validate FILE|FOLDER... [-r] [-j N] [--json]");
    return rc ? rc : batch_validate(c);
}
