/* png.h — an 8-bit indexed PNG of its own making (stored deflate blocks, CRC-32, Adler-32:
 * no compression library), for heat maps too large for one SVG element per cell. Pure. */
#ifndef FP_PNG_H
#define FP_PNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The PNG of a w x h image of palette indices (row-major), palette npal (1..256) RGB
 * triplets, into a malloc'd buffer (*out, *outlen). 0, or FP_ERUNTIME out of memory. */
int png_indexed(int w, int h, const uint8_t *pix, const uint8_t (*pal)[3], int npal, uint8_t **out,
		size_t *outlen);
/* Write n bytes as base64 (RFC 4648, padded, one line). */
void png_base64(FILE *f, const uint8_t *p, size_t n);

/* The checksums, exposed for tests: CRC-32 (ISO-HDLC, as PNG and zlib) and Adler-32. */
uint32_t png_crc32(const uint8_t *p, size_t n);
uint32_t png_adler32(const uint8_t *p, size_t n);

#endif
