/*
 * mab_fixture.h - an encoder of synthetic .mab files for the tests, written
 * from the fact sheet (mab.md, sections 3-10) and independent of the
 * plugin's reader. It quantises known rotations (and translations) into
 * the integers the sheet describes, writes them, and reports the values a
 * correct decoder must produce from those integers ("expected"), computed
 * here by its own arithmetic.
 */
#ifndef MAB_FIXTURE_H
#define MAB_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

enum { MABFX_NONE = 0, MABFX_CONST = 1, MABFX_ANIM = 2 };

typedef struct mabfx_track {
    uint32_t hash;        /* family D: CRC-32 of the bone name */
    unsigned bone_id;     /* FC2: bit in the masks (0..159) */
    int rot;              /* MABFX_NONE, MABFX_CONST or MABFX_ANIM */
    unsigned bits;        /* family D animated: 1..16 */
    int force_implicit;   /* family D: -1 = largest component, else 0..3 */
    int force_signs;      /* family D: write sign bits even if all positive */
    const double (*in)[4]; /* rotations: one per frame (ANIM) or one (CONST) */
    double (*out)[4];     /* filled: the expected decode of what was written */
    /* Filled when set (family D animated): each key's stored bytes as the
     * reader keeps them, the three fields written (a constant component's
     * 16-bit word, else its field), then the block's flags and, for a
     * rotation, the key's sign bit. */
    unsigned char (*raw)[8];
    /* Family S keyed rotations: which frames hold a key (frame % 8 == 0
     * always does); NULL = every frame. */
    const unsigned char *keyed;
    /* Translations (WDL/WD2/WD1/FC5 bitstream; FC2 floats). */
    int tr;               /* MABFX_NONE, MABFX_CONST (FC2 only) or MABFX_ANIM */
    unsigned tr_bits;     /* family D: bits of the compression entry */
    uint32_t tr_code;     /* family D: 24-bit scale code (x 0.00029802325) */
    const double (*tin)[3];
    double (*tout)[3];
    unsigned char (*traw)[8]; /* as raw, for translations (7 bytes) */
} mabfx_track;

typedef struct mabfx_spec {
    unsigned version;     /* the u16 at offset 0 */
    size_t ntracks;
    mabfx_track *track;
    size_t frames;        /* F: stored keys (family D) / lastFrame + 1 (S) */
    const uint16_t *ticks; /* family D key times in the version's unit */
    float duration;       /* written as is */
    float fps;            /* WDL/WD2/FC5 header rate; FC2 u16; FC3 f32 */
    /* Filled by the build: what the rotation bitstream exercised. */
    unsigned n_const_comp, n_var_comp, n_sign_blocks, n_implicit[4], n_partial_chunks;
    /* ... and what the translation stream exercised (blocks by bit depth). */
    unsigned n_tr_const_comp, n_tr_var_comp, n_tr_partial_chunks, n_tr_bits[17];
} mabfx_spec;

/* Builds the file (malloc'd) and fills every track's `out` / `tout`.
 * Returns NULL on a spec the encoder cannot express. */
unsigned char *mabfx_build(mabfx_spec *spec, size_t *size);

/* The quantisation bound of the bitstream for `bits` bits of a chunk
 * whose component range is `range`: half a step, or the whole range at
 * b = 1 (slope 0), plus the base's 1/127 grid. */
double mabfx_step(unsigned bits, double range);

#endif
