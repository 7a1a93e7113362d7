/* txa.c - the plugin of README's "Writing a plugin, step by step": "txa",
 * a text format: a line "TXA 1", then one rotation key per line,
 * TIME X Y Z W BONE (seconds, a unit quaternion as animkit.h defines it,
 * the bone's name: the rest of the line).
 * It reads with ak_text (line and column in errors), prints numbers with
 * ak_format_number (a '.' whatever the host's locale) and declares its one
 * parameter. */
#include <animkit/plugin.h>

#include <string.h>

static int txa_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    (void)filename;
    return size >= 5 && memcmp(bytes, "TXA 1", 5) == 0 ? AK_PROBE_MAGIC : 0;
}

static ak_track *track_named(ak_clip *clip, const char *name, size_t len)
{
    for (size_t i = 0; i < clip->track_count; i++)
        if (strlen(clip->tracks[i]->bone) == len && memcmp(clip->tracks[i]->bone, name, len) == 0)
            return clip->tracks[i];
    char bone[256];
    if (len > 255)
        len = 255;
    memcpy(bone, name, len);
    bone[len] = '\0';
    return ak_track_add(clip, bone); /* copies the name */
}

static ak_status txa_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_text t;
    ak_text_init(&t, job, bytes, size);
    if (!ak_text_expect(&t, "TXA") || !ak_text_expect(&t, "1"))
        return AK_E_DATA;
    ak_text_next_line(&t);
    char stem[64];
    ak_path_stem(ak_job_filename(job), stem, sizeof stem);
    ak_clip *clip = ak_clip_add(doc, stem);
    if (!clip)
        return AK_E_NOMEM; /* the job has failed already */
    static const char *const what[5] = { "the time", "x", "y", "z", "w" };
    while (!ak_text_at_end(&t)) {
        if (ak_text_at_line_end(&t)) { /* a blank line */
            ak_text_next_line(&t);
            continue;
        }
        double v[5];
        for (int i = 0; i < 5; i++)
            if (!ak_text_number(&t, what[i], &v[i]))
                return AK_E_DATA; /* the job failed with file:line:column */
        ak_text_at_line_end(&t); /* skips the blanks before the name */
        size_t len;
        const char *name = ak_text_line(&t, &len); /* the rest: names may hold spaces */
        if (!len)
            return ak_text_fail(&t, AK_E_DATA, "expected a bone name after the numbers");
        ak_track *track = track_named(clip, name, len);
        ak_key *k = track ? ak_key_add(track, AK_ROTATION) : NULL;
        if (!k)
            return AK_E_NOMEM;
        k->time = v[0];
        memcpy(k->v, v + 1, sizeof k->v);
        if (k->time > clip->duration)
            clip->duration = k->time; /* no stated length: the last key's time */
    }
    return ak_job_failed(job) ? AK_E_DATA : AK_OK;
}

static void put_number(ak_sink *out, double v, int digits)
{
    char buf[32];
    int n = ak_format_number(v, digits, buf, sizeof buf); /* '.' in every locale */
    ak_put(out, buf, (size_t)n);
    ak_put(out, " ", 1);
}

static ak_status txa_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    const ak_clip *clip = doc->clips[0]; /* single-clip codec: exactly one */
    int digits = (int)ak_job_param_int(job, "digits", 0);
    ak_put(out, "TXA 1\n", 6);
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_track *track = clip->tracks[i];
        const ak_channel *rot = &track->channel[AK_ROTATION];
        if (strpbrk(track->bone, "\r\n"))
            return ak_fail(job, AK_E_UNSUPPORTED, -1, "bone name '%s' holds a line break, which txa cannot store",
                           track->bone);
        for (size_t k = 0; k < rot->count; k++) {
            put_number(out, rot->keys[k].time, digits);
            for (int c = 0; c < 4; c++)
                put_number(out, rot->keys[k].v[c], digits);
            ak_put(out, track->bone, strlen(track->bone));
            ak_put(out, "\n", 1);
        }
    }
    return ak_sink_failed(out) ? AK_E_NOMEM : AK_OK;
}

static const ak_param txa_params[] = {
    { "digits", AK_PARAM_INT, AK_PARAM_WRITE, NULL, "0", "significant digits, 0 = as few as read back exactly" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

static const ak_codec txa_codec = {
    .abi_major = AK_ABI_MAJOR,
    .abi_minor = AK_ABI_MINOR,
    .struct_size = sizeof(ak_codec),
    .caps = AK_CAP_BONE_NAME,
    .name = "txa",
    .version = "1.0.0",
    .description = "text rotation keys (walkthrough example)",
    .license = "MIT",
    .extensions = "txa",
    .probe = txa_probe,
    .read = txa_read,
    .write = txa_write,
    .params = txa_params,
};

/* The entry point and the ABI note the core reads before loading any code. */
AK_PLUGIN_ENTRY(txa_codec);
