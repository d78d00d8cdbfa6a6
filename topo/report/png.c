/* png.c — see png.h. PNG: RFC 2083 / ISO 15948; zlib stream: RFC 1950; stored deflate blocks:
 * RFC 1951 §3.2.4. The CRC table lives on the stack of the call that needs it. */
#include "png.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

static void crc_table(uint32_t t[256])
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		t[n] = c;
	}
}

static uint32_t crc_update(const uint32_t t[256], uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = t[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

uint32_t png_crc32(const uint8_t *p, size_t n)
{
	uint32_t t[256];

	crc_table(t);
	return crc_update(t, 0, p, n);
}

uint32_t png_adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;

	while (n) {
		size_t k = n < 5552 ? n : 5552; /* the most sums before b can overflow */

		n -= k;
		while (k--) {
			a += *p++;
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return b << 16 | a;
}

static uint8_t *be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

/* A chunk at p: length, type, data (already at p + 8, len bytes), CRC. Returns its end. */
static uint8_t *chunk_seal(const uint32_t t[256], uint8_t *p, const char *type, size_t len)
{
	be32(p, (uint32_t)len);
	memcpy(p + 4, type, 4);
	return be32(p + 8 + len, crc_update(t, 0, p + 4, len + 4));
}

/* The zlib stream of the filtered rows (filter byte 0 before each), in stored blocks. */
static uint8_t *idat_data(uint8_t *p, int w, int h, const uint8_t *pix)
{
	size_t row = (size_t)w + 1, raw = row * (size_t)h, done = 0;
	uint32_t a = 1, b = 0;

	*p++ = 0x78; /* deflate, 32 KiB window */
	*p++ = 0x01; /* no compression; 0x7801 is a multiple of 31 */
	while (done < raw) {
		size_t k = raw - done < 65535 ? raw - done : 65535;

		*p++ = done + k == raw; /* BFINAL, BTYPE 00 */
		*p++ = (uint8_t)k;
		*p++ = (uint8_t)(k >> 8);
		*p++ = (uint8_t)~k;
		*p++ = (uint8_t)(~k >> 8);
		for (size_t i = done; i < done + k; i++) {
			uint8_t v = i % row ? pix[(i / row) * (size_t)w + i % row - 1] : 0;

			*p++ = v;
			a = (a + v) % 65521;
			b = (b + a) % 65521;
		}
		done += k;
	}
	return be32(p, b << 16 | a);
}

int png_indexed(int w, int h, const uint8_t *pix, const uint8_t (*pal)[3], int npal, uint8_t **out,
		size_t *outlen)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
	size_t raw = ((size_t)w + 1) * (size_t)h, blocks = raw / 65535 + 1;
	size_t zlen = 2 + raw + 5 * blocks + 4, cap = 8 + 25 + 12 + 3 * 256 + 12 + zlen + 12;
	uint8_t *buf = malloc(cap), *p;
	uint32_t t[256];

	if (!buf || w < 1 || h < 1 || npal < 1 || npal > 256) {
		free(buf);
		return FP_ERUNTIME;
	}
	crc_table(t);
	memcpy(buf, sig, 8);
	p = buf + 8;
	be32(p + 8, (uint32_t)w);
	be32(p + 12, (uint32_t)h);
	memcpy(p + 16, "\x08\x03\x00\x00\x00", 5); /* 8 bits, indexed, deflate, adaptive, no interlace */
	p = chunk_seal(t, p, "IHDR", 13);
	memcpy(p + 8, pal, (size_t)npal * 3);
	p = chunk_seal(t, p, "PLTE", (size_t)npal * 3);
	uint8_t *end = idat_data(p + 8, w, h, pix);
	p = chunk_seal(t, p, "IDAT", (size_t)(end - (p + 8)));
	p = chunk_seal(t, p, "IEND", 0);
	*out = buf;
	*outlen = (size_t)(p - buf);
	return 0;
}

void png_base64(FILE *f, const uint8_t *p, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		q[0] = abc[v >> 18 & 63];
		q[1] = abc[v >> 12 & 63];
		q[2] = i + 1 < n ? abc[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? abc[v & 63] : '=';
		fwrite(q, 1, 4, f);
	}
}
