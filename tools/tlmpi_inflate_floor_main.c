/*
 * tlmpi-inflate-floor - the speed floor for reading .json.gz: a minimal
 * zlib inflate loop (256 KiB output chunks, output discarded, multi-member
 * aware).  scripts/bench.sh compares `tlmpi inspect` against it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tlmpi-inflate-floor FILE.gz\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static unsigned char in[1 << 18], out[1 << 18];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long total = 0;
    int zr = Z_OK;
    for (;;) {
        if (zs.avail_in == 0) {
            zs.avail_in = (uInt)fread(in, 1, sizeof in, f);
            zs.next_in = in;
            if (zs.avail_in == 0)
                break;
        }
        zs.next_out = out;
        zs.avail_out = sizeof out;
        zr = inflate(&zs, Z_NO_FLUSH);
        total += sizeof out - zs.avail_out;
        if (zr == Z_STREAM_END) {
            if (zs.avail_in == 0) {
                zs.avail_in = (uInt)fread(in, 1, sizeof in, f);
                zs.next_in = in;
            }
            if (zs.avail_in == 0)
                break;
            inflateReset(&zs);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            fprintf(stderr, "inflate error %d\n", zr);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("inflated %llu bytes in %.3f s: %.1f MB/s\n", total, dt,
           dt > 0 ? (double)total / 1e6 / dt : 0.0);
    inflateEnd(&zs);
    fclose(f);
    return 0;
}
