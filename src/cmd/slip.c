/*
 * slip.c - slips of the single-trace commands answered with the fix: the
 * closest option for an unknown one, --trace_dir for a folder given where
 * a trace file is expected.
 */
#include "slip.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "suggest.h"

void tlm_cmd_unknown_opt(const char *cmd, const char *opt,
                         void (*usage)(FILE *))
{
    char *text = NULL, best[300];
    size_t len = 0;
    int found = 0;
    FILE *m = usage ? open_memstream(&text, &len) : NULL;
    if (m) {
        usage(m);
        if (fclose(m) == 0 && text)
            found = tlm_suggest_opt(opt, text, best, sizeof best);
    }
    free(text);
    if (found)
        fprintf(stderr, "tlmpi %s: unknown option %s; did you mean `%s`? "
                "(see tlmpi %s --help)\n", cmd, opt, best, cmd);
    else
        fprintf(stderr, "tlmpi %s: unknown option %s (see tlmpi %s "
                "--help)\n", cmd, opt, cmd);
}

int tlm_cmd_trace_is_folder(const char *cmd, const char *path)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    fprintf(stderr, "tlmpi %s: %s is a folder; give one trace file (for "
            "a folder of one job's traces: mpirun -n N tlmpi --trace_dir "
            "%s)\n", cmd, path, path);
    return 1;
}
