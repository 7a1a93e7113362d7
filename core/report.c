/* report.c - status codes, messages and the per-call job through which
 * plugins report errors and read their parameters. */
#include "config.h"
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ak_version(void) { return PACKAGE_VERSION; }

uint32_t ak_version_number(void)
{
    unsigned major = 0, minor = 0, patch = 0;
    sscanf(PACKAGE_VERSION, "%u.%u.%u", &major, &minor, &patch);
    return major << 16 | minor << 8 | patch;
}

const char *ak_status_name(ak_status status)
{
    switch (status) {
    case AK_OK: return "ok";
    case AK_E_USAGE: return "usage error";
    case AK_E_DATA: return "bad data";
    case AK_E_UNSUPPORTED: return "unsupported";
    case AK_E_NOFORMAT: return "unknown format";
    case AK_E_AMBIGUOUS: return "ambiguous format";
    case AK_E_LIMIT: return "over the memory limit";
    case AK_E_NOINPUT: return "no input";
    case AK_E_NOMEM: return "out of memory";
    case AK_E_CANTCREATE: return "cannot create output";
    case AK_E_IO: return "I/O error";
    case AK_E_CONFIG: return "configuration error";
    case AK_E_NOWRITE: return "format cannot be written";
    default: return "unknown status";
    }
}

int ak_status_exit(ak_status status)
{
    switch (status) {
    case AK_OK: return 0;
    case AK_E_USAGE: return 64;        /* EX_USAGE */
    case AK_E_DATA:
    case AK_E_UNSUPPORTED:
    case AK_E_NOFORMAT:
    case AK_E_AMBIGUOUS:
    case AK_E_LIMIT: return 65;        /* EX_DATAERR */
    case AK_E_NOINPUT: return 66;      /* EX_NOINPUT */
    case AK_E_NOWRITE: return 69;      /* EX_UNAVAILABLE */
    case AK_E_NOMEM: return 71;        /* EX_OSERR */
    case AK_E_CANTCREATE: return 73;   /* EX_CANTCREAT */
    case AK_E_IO: return 74;           /* EX_IOERR */
    case AK_E_CONFIG: return 78;       /* EX_CONFIG */
    default: return 70;                /* EX_SOFTWARE */
    }
}

void ak_message_format(const ak_message *msg, char *buf, size_t size)
{
    const char *sev = msg->severity == AK_ERROR ? "error" : msg->severity == AK_WARNING ? "warning" : "note";
    char where[64] = "";
    if (msg->offset >= 0)
        snprintf(where, sizeof where, " (at byte %lld, 0x%llx)", (long long)msg->offset,
                 (unsigned long long)msg->offset);
    char place[32] = "";
    if (msg->file && msg->line)
        snprintf(place, sizeof place, ":%lu:%lu", (unsigned long)msg->line, (unsigned long)msg->column);
    snprintf(buf, size, "%s%s%s%s%s%s: %s%s", msg->file ? msg->file : "", place, msg->file ? ": " : "",
             msg->plugin ? msg->plugin : "", msg->plugin ? ": " : "", sev, msg->text, where);
}

void ak_report_emitv(ak_report *report, ak_severity severity, ak_status status, const char *file,
                     const char *plugin, int64_t offset, const char *fmt, va_list ap)
{
    ak_report_emit_at(report, severity, status, file, plugin, offset, 0, 0, fmt, ap);
}

void ak_report_emit_at(ak_report *report, ak_severity severity, ak_status status, const char *file,
                       const char *plugin, int64_t offset, uint32_t line, uint32_t column, const char *fmt,
                       va_list ap)
{
    if (!report)
        return;
    char text[512];
    /* Numbers in messages read the same whatever locale the host set. */
    locale_t old = ak_c_locale_enter();
    vsnprintf(text, sizeof text, fmt, ap);
    ak_c_locale_leave(old);
    ak_message msg = { severity, status, file, plugin, offset, text, line, column };
    if (severity == AK_ERROR && report->status == AK_OK) {
        report->status = status;
        report->offset = offset;
        snprintf(report->plugin, sizeof report->plugin, "%s", plugin ? plugin : "");
        snprintf(report->text, sizeof report->text, "%s", text);
        ak_message_format(&msg, report->message, sizeof report->message);
    }
    if (severity == AK_WARNING)
        report->warnings++;
    if (report->on_message)
        report->on_message(report->user, &msg);
}

void ak_report_emit(ak_report *report, ak_severity severity, ak_status status, const char *file,
                    const char *plugin, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ak_report_emitv(report, severity, status, file, plugin, offset, fmt, ap);
    va_end(ap);
}

void ak_job_init(ak_job *job, const ak_codec *codec, const char *filename,
                 const char *const *params, ak_report *report)
{
    memset(job, 0, sizeof *job);
    job->codec = codec;
    job->filename = filename;
    job->params = params;
    job->report = report;
}

static ak_status fail_v(ak_job *job, ak_status status, int64_t offset, uint32_t line, uint32_t column,
                        const char *fmt, va_list ap)
{
    if (status == AK_OK)
        status = AK_E_DATA;
    if (job->failed)
        return job->status;
    job->failed = 1;
    job->status = status;
    ak_report_emit_at(job->report, AK_ERROR, status, job->filename, job->codec ? job->codec->name : NULL,
                      offset, line, column, fmt, ap);
    return status;
}

ak_status ak_fail(ak_job *job, ak_status status, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ak_status st = fail_v(job, status, offset, 0, 0, fmt, ap);
    va_end(ap);
    return st;
}

ak_status ak_fail_at(ak_job *job, ak_status status, int64_t offset, uint32_t line, uint32_t column,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ak_status st = fail_v(job, status, offset, line, column, fmt, ap);
    va_end(ap);
    return st;
}

ak_status ak_fail_atv(ak_job *job, ak_status status, int64_t offset, uint32_t line, uint32_t column,
                      const char *fmt, va_list ap)
{
    return fail_v(job, status, offset, line, column, fmt, ap);
}

void ak_warn(ak_job *job, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ak_report_emitv(job->report, AK_WARNING, AK_OK, job->filename,
                    job->codec ? job->codec->name : NULL, offset, fmt, ap);
    va_end(ap);
}

const char *ak_job_param(const ak_job *job, const char *key)
{
    size_t n = strlen(key);
    for (const char *const *p = job->params; p && *p; p++)
        if (strncmp(*p, key, n) == 0 && (*p)[n] == '=')
            return *p + n + 1;
    return NULL;
}

const char *ak_job_filename(const ak_job *job) { return job->filename; }
int ak_job_failed(const ak_job *job) { return job->failed; }

uint32_t ak_crc32(const void *data, size_t size)
{
    const unsigned char *p = data;
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}
