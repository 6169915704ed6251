/*
 * cmd_compare.c - `tlmpi compare`: two analysis files (HDF5) go to the
 * run-to-run comparison (compare_runs.c), as do files named *.h5 (which
 * it refuses when they are not HDF5).  Placeholder route of this
 * branch: the report comparison replaces this file.
 */
#include "cli.h"
#include "compare_runs.h"

#include <stdio.h>
#include <string.h>

static int is_h5(const char *path)
{
    static const unsigned char magic[8] = {0x89, 'H', 'D', 'F',
                                           '\r', '\n', 0x1a, '\n'};
    unsigned char b[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return n == sizeof b && memcmp(b, magic, sizeof b) == 0;
}

int tlm_cmd_compare(int argc, char **argv)
{
    int n = 0, h5 = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            if (!strcmp(argv[i], "--output_dir") ||
                !strcmp(argv[i], "--top") ||
                !strcmp(argv[i], "--min_impact_pct"))
                i++;
            else if (!strcmp(argv[i], "--names"))
                i += 2;
            continue;
        }
        size_t len = strlen(argv[i]);
        n++;
        h5 += is_h5(argv[i]) ||
              (len > 3 && !strcmp(argv[i] + len - 3, ".h5"));
    }
    if (h5 == n) /* also no file at all: --help, --print_schema, usage */
        return tlm_cmd_compare_runs(argc, argv);
    fprintf(stderr, "tlmpi compare: report comparison not built in this "
                    "branch (give two .h5 analysis files)\n");
    return 2;
}
