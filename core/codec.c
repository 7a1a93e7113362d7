/* codec.c - picking a codec (probe scores, priorities, extensions) and
 * running its read and write under a job. */
#include "registry.h"

#include <string.h>

static int clamp_score(int s) { return s < 0 ? 0 : s > 100 ? 100 : s; }

static int score_of(const ak_codec *c, const unsigned char *bytes, size_t size, const char *filename)
{
    if (c->probe)
        return clamp_score(c->probe(bytes, size, filename));
    return ak_codec_has_extension(c, ak_path_extension(filename)) ? AK_PROBE_EXTENSION : 0;
}

/* The best score over every codec that reads, and a second codec of that
 * score and priority if there is one. */
typedef struct probe_round {
    const ak_plugin_info *best, *tied;
    int score;
    size_t at_best; /* codecs with the best score, whatever their priority */
} probe_round;

static void probe_every(const ak_registry *reg, const unsigned char *bytes, size_t size, const char *filename,
                        probe_round *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < reg->count; i++) {
        const ak_plugin_info *p = &reg->plugins[i];
        if (!p->codec->read)
            continue;
        int s = score_of(p->codec, bytes, size, filename);
        if (s == 0)
            continue;
        if (!r->best || s > r->score) {
            r->best = p;
            r->tied = NULL;
            r->score = s;
            r->at_best = 1;
            continue;
        }
        if (s < r->score)
            continue;
        r->at_best++;
        if (p->priority > r->best->priority) {
            r->best = p;
            r->tied = NULL;
        } else if (p->priority == r->best->priority) {
            r->tied = p;
        }
    }
}

/* Magic first: each probe is asked without the file name, since finding
 * the name's extension is much of what a probe costs when it does not
 * recognise the bytes (a loop reading e75.anm: 811-827 ns a read probed
 * with the name each time, 768-775 this way, 693-714 with the format
 * named). A magic match does not depend on the name (ak_codec.probe), so
 * a lone one stands: nothing the name adds could tie it. Otherwise every
 * probe is asked again with the name, and that round decides. */
ak_status ak_probe(const ak_registry *reg, const void *bytes, size_t size, const char *filename,
                   ak_probe_result *result, ak_report *report)
{
    memset(result, 0, sizeof *result);
    probe_round r;
    probe_every(reg, bytes, size, NULL, &r);
    if (filename && !(r.score == AK_PROBE_MAGIC && r.at_best == 1))
        probe_every(reg, bytes, size, filename, &r);
    if (!r.best) {
        ak_report_emit(report, AK_ERROR, AK_E_NOFORMAT, filename, NULL, -1,
                       "no plugin recognises this file (%zu plugins asked)", reg->count);
        return AK_E_NOFORMAT;
    }
    result->codec = r.best->codec;
    result->score = r.score;
    if (r.tied) {
        result->runner_up = r.tied->codec;
        ak_report_emit(report, AK_ERROR, AK_E_AMBIGUOUS, filename, NULL, -1,
                       "ambiguous format: plugins '%s' and '%s' both score %d; choose one with --format "
                       "or give one a higher priority in the config",
                       r.best->codec->name, r.tied->codec->name, r.score);
        return AK_E_AMBIGUOUS;
    }
    return AK_OK;
}

static const ak_codec *codec_named(const ak_registry *reg, const char *name, const char *file,
                                   ak_report *report)
{
    const ak_plugin_info *p = ak_registry_find(reg, name);
    if (!p)
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, NULL, -1, "no plugin named '%s' is loaded", name);
    return p ? p->codec : NULL;
}

static const char *opt_format(const ak_options *o) { return o ? o->format : NULL; }
static const char *opt_filename(const ak_options *o) { return o ? o->filename : NULL; }
static const char *const *opt_params(const ak_options *o) { return o ? o->params : NULL; }

static uint32_t opt_flags(const ak_options *o)
{
    return o && o->struct_size >= offsetof(ak_options, flags) + sizeof o->flags ? o->flags : 0;
}

static int explicit_limit(const ak_options *o)
{
    return o && o->struct_size >= offsetof(ak_options, max_alloc) + sizeof o->max_alloc && o->max_alloc;
}

static size_t times_plus(size_t size, size_t factor, size_t base)
{
    return size > (SIZE_MAX - base) / factor ? SIZE_MAX : size * factor + base;
}

/* A caller's max_alloc caps everything; the default caps what input bytes
 * can become (names, properties, stored bytes, scratch) at a small multiple
 * of the input, and what the counts need (key arrays, reservations) apart:
 * see AK_READ_ALLOC_FACTOR. */
static size_t read_limit(const ak_options *o, size_t size)
{
    if (explicit_limit(o))
        return o->max_alloc;
    return times_plus(size, AK_READ_ALLOC_FACTOR, AK_READ_ALLOC_BASE);
}

static size_t read_key_limit(const ak_options *o, size_t size)
{
    return explicit_limit(o) ? 0 : times_plus(size, AK_READ_KEY_FACTOR, AK_READ_KEY_BASE);
}

ak_status ak_read(const ak_registry *reg, const void *bytes, size_t size, const ak_options *options,
                  ak_doc **out, ak_report *report)
{
    *out = NULL;
    const char *file = opt_filename(options);
    const ak_codec *codec;
    if (opt_format(options)) {
        codec = codec_named(reg, opt_format(options), file, report);
        if (!codec)
            return AK_E_USAGE;
    } else {
        ak_probe_result pr;
        ak_status st = ak_probe(reg, bytes, size, file, &pr, report);
        if (st != AK_OK)
            return st;
        codec = pr.codec;
    }
    if (!codec->read) {
        ak_report_emit(report, AK_ERROR, AK_E_UNSUPPORTED, file, codec->name, -1, "this plugin cannot read");
        return AK_E_UNSUPPORTED;
    }
    if (ak_params_check(reg, codec, AK_PARAM_READ, opt_params(options), file, report) != AK_OK)
        return AK_E_USAGE;
    ak_job job;
    max_align_t small_scratch[AK_JOB_STACK_SCRATCH / sizeof(max_align_t)];
    ak_job_init(&job, codec, file, opt_params(options), report);
    job.use = AK_PARAM_READ;
    ak_doc *doc = ak_doc_new_with(&reg->allocator, 0);
    if (!doc) {
        ak_report_emit(report, AK_ERROR, AK_E_NOMEM, file, NULL, -1, "out of memory");
        return AK_E_NOMEM;
    }
    ak_doc_attach_job(doc, &job, read_limit(options, size));
    ak_doc_limit_keys(doc, read_key_limit(options, size));
    ak_doc_expect(doc, size);
    ak_doc_use_pool(doc, reg->pool);
    ak_job_use_stack(&job, small_scratch, sizeof small_scratch); /* until ak_job_release_scratch */
    if (opt_flags(options) & AK_READ_OUTLINE)
        job.outline_doc = doc;
    ak_status st = codec->read(&job, bytes, size, doc);
    ak_job_release_scratch(&job);
    if (job.failed) /* the first error wins: a cap hit inside a helper, not its fallout */
        st = job.status;
    if (st != AK_OK) {
        if (!job.failed)
            ak_fail(&job, st, -1, "read failed (%s)", ak_status_name(st));
        ak_doc_free(doc);
        return st;
    }
    ak_doc_attach_job(doc, NULL, 0);
    if ((opt_flags(options) & AK_READ_STRICT) && ak_doc_check(doc, file, codec->name, 1, report)) {
        ak_doc_free(doc);
        return AK_E_DATA;
    }
    /* A container (json) may restore the format whose data the document
     * carries; everyone else gets their own name. */
    if (!doc->format[0] && ak_doc_set_format(doc, codec->name, doc->variant) != AK_OK) {
        ak_doc_free(doc);
        ak_report_emit(report, AK_ERROR, AK_E_NOMEM, file, NULL, -1, "out of memory");
        return AK_E_NOMEM;
    }
    /* A file that carries its own skeleton has its tracks tied to it. */
    if (doc->skeleton.bone_count && ak_doc_match_skeleton(doc) == (size_t)-1) {
        ak_doc_free(doc);
        ak_report_emit(report, AK_ERROR, AK_E_NOMEM, file, NULL, -1, "out of memory");
        return AK_E_NOMEM;
    }
    doc->private_->read_by = codec;
    doc->private_->read_size = size;
    *out = doc;
    return AK_OK;
}

/* Whether `p` is a better target for a write by extension than `best`: a
 * codec that writes beats one that only reads, whatever the priorities
 * (the priority settles probe ties between readers); among equals the
 * higher priority wins. */
static int better_target(const ak_plugin_info *p, const ak_plugin_info *best)
{
    if (!best)
        return 1;
    int p_writes = p->codec->write != NULL, best_writes = best->codec->write != NULL;
    return p_writes != best_writes ? p_writes : p->priority > best->priority;
}

/* The codec a write goes to: named, else by the file's extension. */
static const ak_codec *write_target(const ak_registry *reg, const ak_doc *doc, const ak_options *o,
                                    ak_report *report)
{
    const char *file = opt_filename(o);
    if (opt_format(o))
        return codec_named(reg, opt_format(o), file, report);
    const char *ext = ak_path_extension(file);
    const ak_plugin_info *best = NULL;
    for (size_t i = 0; i < reg->count; i++) {
        const ak_plugin_info *p = &reg->plugins[i];
        if (ak_codec_has_extension(p->codec, ext) && better_target(p, best))
            best = p;
    }
    if (best)
        return best->codec;
    if (!file && doc->format[0])
        return codec_named(reg, doc->format, file, report);
    if (file)
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, NULL, -1,
                       "cannot tell the output format from the name '%s'; name one with --to", file);
    else
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, NULL, NULL, -1,
                       "no file name or document format to tell the output format from; name one with --to");
    return NULL;
}

static void warn_loss(ak_report *report, const char *file, const ak_codec *c, const char *fmt, size_t n,
                      const char *what)
{
    ak_report_emit(report, AK_WARNING, AK_OK, file, c->name, -1, fmt, n, what, c->name);
}

static int props_or_raw(const ak_props *props, const ak_track *t)
{
    if (props->count)
        return 1;
    for (int c = 0; t && c < AK_CHANNELS; c++)
        for (size_t k = 0; k < t->channel[c].count; k++)
            if (t->channel[c].keys[k].raw_size)
                return 1;
    return 0;
}

/* Whether the document holds anything only its own format understands. */
static int has_format_data(const ak_doc *doc)
{
    if (props_or_raw(&doc->props, NULL))
        return 1;
    for (size_t i = 0; i < doc->clip_count; i++) {
        const ak_clip *clip = doc->clips[i];
        if (props_or_raw(&clip->props, NULL))
            return 1;
        for (size_t t = 0; t < clip->track_count; t++)
            if (props_or_raw(&clip->tracks[t]->props, clip->tracks[t]))
                return 1;
        for (size_t e = 0; e < clip->event_count; e++)
            if (props_or_raw(&clip->events[e].props, NULL))
                return 1;
    }
    return 0;
}

/* What the per-track checks of report_losses count. */
typedef struct losses {
    size_t keys[AK_CHANNELS], events, ids, weights, hashes, nameless;
} losses;

/* Capabilities that make every per-track check moot: a writer holding
 * all of them (a same-format write of most formats) needs no walk. */
#define AK_TRACK_CAPS                                                                                         \
    (AK_CAP_TRANSLATION | AK_CAP_SCALE | AK_CAP_VISIBILITY | AK_CAP_EVENTS | AK_CAP_BONE_ID | AK_CAP_WEIGHT | \
     AK_CAP_BONE_HASH)

/* One pass over the tracks, counting what `caps` cannot hold. */
static void count_losses(const ak_doc *doc, unsigned caps, losses *l)
{
    memset(l, 0, sizeof *l);
    if ((caps & AK_TRACK_CAPS) == AK_TRACK_CAPS)
        return;
    /* Key counts only when some channel is lost: a format that keeps them
     * all (most) then reads no channel of a many-bone clip's tracks. */
    const unsigned channel_caps = AK_CAP_TRANSLATION | AK_CAP_SCALE | AK_CAP_VISIBILITY;
    int count_keys = (caps & channel_caps) != channel_caps;
    for (size_t i = 0; i < doc->clip_count; i++) {
        const ak_clip *clip = doc->clips[i];
        l->events += clip->event_count;
        for (size_t t = 0; t < clip->track_count; t++) {
            const ak_track *tr = clip->tracks[t];
            for (int c = 0; count_keys && c < AK_CHANNELS; c++)
                l->keys[c] += tr->channel[c].count;
            l->ids += tr->has_bone_id;
            l->weights += tr->weight != 1.0;
            l->hashes += tr->has_bone_hash;
            l->nameless += !tr->bone[0];
        }
    }
}

/* Everything the target codec's caps say it cannot hold. */
static void report_losses(const ak_doc *doc, const ak_codec *c, const char *file, ak_report *report)
{
    losses s;
    count_losses(doc, c->caps, &s);
    size_t ids = s.ids, weights = s.weights, nameless = s.nameless;
    const char *fmt = "%zu %s will be dropped: %s cannot store them";
    if (s.keys[AK_TRANSLATION] && !(c->caps & AK_CAP_TRANSLATION))
        warn_loss(report, file, c, fmt, s.keys[AK_TRANSLATION], "translation keys");
    if (s.keys[AK_SCALE] && !(c->caps & AK_CAP_SCALE))
        warn_loss(report, file, c, fmt, s.keys[AK_SCALE], "scale keys");
    if (s.keys[AK_VISIBILITY] && !(c->caps & AK_CAP_VISIBILITY))
        warn_loss(report, file, c, fmt, s.keys[AK_VISIBILITY], "visibility keys");
    if (s.events && !(c->caps & AK_CAP_EVENTS))
        warn_loss(report, file, c, fmt, s.events, "events");
    if (ids && !(c->caps & AK_CAP_BONE_ID))
        warn_loss(report, file, c, fmt, ids, "bone ids");
    if (weights && !(c->caps & AK_CAP_WEIGHT))
        warn_loss(report, file, c, fmt, weights, "track weights other than 1");
    if (s.hashes && !(c->caps & AK_CAP_BONE_HASH))
        warn_loss(report, file, c, fmt, s.hashes, "bone hashes");
    if (nameless && (c->caps & AK_CAP_BONE_NAME) && !(c->caps & AK_CAP_BONE_HASH))
        warn_loss(report, file, c, "%zu %s have no bone name and will be written with an empty one (%s)",
                  nameless, "tracks");
    if (doc->skeleton.bone_count && !(c->caps & AK_CAP_SKELETON))
        warn_loss(report, file, c, "the skeleton (%zu %s) is not carried: %s cannot store one",
                  doc->skeleton.bone_count, "bones");
    if (doc->format[0] && strcmp(doc->format, c->name) != 0 && !(c->caps & AK_CAP_ANY_FORMAT) &&
        has_format_data(doc))
        ak_report_emit(report, AK_WARNING, AK_OK, file, c->name, -1,
                       "data specific to the %s format (header fields, stored key bits) is not carried into %s",
                       doc->format, c->name);
}

/* The output's first block: as large as the file the document was read
 * from when it goes back to the same format (at least 256 bytes, at most
 * 64 MiB), so that a small file takes one small allocation, not 4 KiB, and
 * a large one is not copied through every doubling on its way there. */
static size_t first_block_size(const ak_doc *doc, const ak_codec *codec)
{
    const struct ak_doc_private *p = doc->private_;
    if (!p || p->read_by != codec || !p->read_size)
        return 0;
    size_t n = p->read_size < 256 ? 256 : p->read_size; /* an edited small file may grow */
    return n < AK_SINK_FIRST_MAX ? n : AK_SINK_FIRST_MAX;
}

ak_status ak_write(const ak_registry *reg, const ak_doc *doc, const ak_options *options,
                   unsigned char **bytes, size_t *size, ak_report *report)
{
    *bytes = NULL;
    *size = 0;
    const char *file = opt_filename(options);
    const ak_codec *codec = write_target(reg, doc, options, report);
    if (!codec)
        return AK_E_USAGE;
    if (!codec->write) {
        ak_report_emit(report, AK_ERROR, AK_E_NOWRITE, file, codec->name, -1, "this plugin cannot write");
        return AK_E_NOWRITE;
    }
    if (ak_doc_outline(doc)) {
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, codec->name, -1,
                       "the document is an outline (read with AK_READ_OUTLINE): its keys were counted, not "
                       "read, so there is nothing to write; read the file in full");
        return AK_E_USAGE;
    }
    if (doc->clip_count != 1 && !(codec->caps & AK_CAP_MULTI_CLIP)) {
        ak_report_emit(report, AK_ERROR, AK_E_USAGE, file, codec->name, -1,
                       "this format holds exactly one clip, the document has %zu; pick one with --clip",
                       doc->clip_count);
        return AK_E_USAGE;
    }
    if (ak_params_check(reg, codec, AK_PARAM_WRITE, opt_params(options), file, report) != AK_OK)
        return AK_E_USAGE;
    report_losses(doc, codec, file, report);
    ak_job job;
    max_align_t small_scratch[AK_JOB_STACK_SCRATCH / sizeof(max_align_t)];
    ak_job_init(&job, codec, file, opt_params(options), report);
    job.use = AK_PARAM_WRITE;
    /* A writer's scratch is bounded by the document, not by a limit. */
    ak_heap scratch_heap = { reg->allocator, 0, 0, &job, 0, 0, reg->pool };
    job.heap = &scratch_heap;
    ak_sink sink;
    ak_sink_init(&sink, &reg->allocator);
    sink.pool = reg->pool;
    sink.first = first_block_size(doc, codec);
    ak_job_use_stack(&job, small_scratch, sizeof small_scratch); /* until ak_job_release_scratch */
    ak_status st = codec->write(&job, doc, &sink);
    ak_job_release_scratch(&job);
    if (job.failed)
        st = job.status;
    if (st == AK_OK && sink.failed)
        st = ak_fail(&job, AK_E_NOMEM, -1, "out of memory while encoding");
    if (st != AK_OK) {
        if (!job.failed)
            ak_fail(&job, st, -1, "write failed (%s)", ak_status_name(st));
        ak_sink_release(&sink);
        return st;
    }
    size_t capacity = sink.capacity;
    *bytes = ak_sink_take(&sink, size);
    if (!*bytes) {
        /* An empty output still gets a buffer so that success means non-NULL. */
        *bytes = reg->allocator.alloc(reg->allocator.user, 1);
        if (!*bytes)
            return ak_fail(&job, AK_E_NOMEM, -1, "out of memory");
        capacity = 1;
    }
    ak_pool_lend(reg->pool, *bytes, capacity);
    return AK_OK;
}

void ak_buffer_free(const ak_registry *reg, unsigned char *bytes)
{
    if (bytes && !ak_pool_return(reg->pool, bytes))
        reg->allocator.free(reg->allocator.user, bytes);
}

ak_status ak_read_file(const ak_registry *reg, const char *path, const ak_options *options, ak_doc **out,
                       ak_report *report)
{
    *out = NULL;
    ak_mapped_file f;
    ak_status st = ak_file_map(path, &f, report);
    if (st != AK_OK)
        return st;
    ak_options o = { sizeof o, NULL, path, NULL, 0, 0 };
    if (options) {
        size_t n = options->struct_size < sizeof o ? options->struct_size : sizeof o;
        memcpy(&o, options, n);
        o.struct_size = sizeof o;
        if (!o.filename)
            o.filename = path;
    }
    st = ak_read(reg, f.data, f.size, &o, out, report);
    ak_file_unmap(&f);
    return st;
}

ak_status ak_write_file(const ak_registry *reg, const ak_doc *doc, const char *path, const ak_options *options,
                        unsigned flags, ak_report *report)
{
    ak_options o = { sizeof o, NULL, path, NULL, 0, 0 };
    if (options) {
        size_t n = options->struct_size < sizeof o ? options->struct_size : sizeof o;
        memcpy(&o, options, n);
        o.struct_size = sizeof o;
        if (!o.filename)
            o.filename = path;
    }
    unsigned char *bytes;
    size_t size;
    ak_status st = ak_write(reg, doc, &o, &bytes, &size, report);
    if (st != AK_OK)
        return st;
    st = ak_file_replace(path, bytes, size, flags, report);
    ak_buffer_free(reg, bytes);
    return st;
}
