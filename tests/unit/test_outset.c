/*
 * test_outset.c - output sets (src/util/outset.c): the output rules
 * (regular file or absent, never an input, --force, folders made and
 * probed), staging beside the final name, all-or-nothing commit with the
 * previous files put back when a step fails, and the sweep of temporaries
 * left by dead processes.  Real files in a fresh temporary folder.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tlmpi/tlm_outset.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tlm_outset_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *name)
{
    static char p[4][400];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The file's text, or "" when absent. */
static const char *get(const char *path)
{
    static char buf[256];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Files in dir (including temporaries). */
static int count_files(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void stage_text(tlm_outset *s, const char *path, const char *text)
{
    const char *tmp = NULL;
    tlm_error err;
    assert_int_equal(tlm_outset_stage(s, path, &tmp, &err), TLM_OK);
    assert_non_null(strstr(tmp, ".tlmpi-"));
    put(tmp, text);
}

static void test_rules(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    assert_int_equal(tlm_outset_init(&s, 0, &err), TLM_OK);
    /* absent: fine, parents created */
    assert_int_equal(tlm_outset_check(&s, at("a/b/c.h5"), &err), TLM_OK);
    struct stat sb;
    assert_int_equal(stat(at("a/b"), &sb), 0);
    /* exists: refused without force */
    put(at("old.csv"), "x");
    assert_int_equal(tlm_outset_check(&s, at("old.csv"), &err), TLM_EEXIST);
    assert_non_null(strstr(err.msg, "--force"));
    /* a FIFO, a folder, a symlink (to a FIFO, to a file): never */
    assert_int_equal(mkfifo(at("fifo"), 0600), 0);
    assert_int_equal(tlm_outset_check(&s, at("fifo"), &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "FIFO"));
    assert_int_equal(tlm_outset_check(&s, at("a"), &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "folder"));
    assert_int_equal(symlink(at("fifo"), at("lnk")), 0);
    assert_int_equal(tlm_outset_check(&s, at("lnk"), &err), TLM_EINVAL);
    assert_non_null(strstr(err.msg, "symbolic link"));
    tlm_outset_free(&s);
    /* force: a regular file may be replaced, the rest still not */
    assert_int_equal(tlm_outset_init(&s, 1, &err), TLM_OK);
    assert_int_equal(tlm_outset_check(&s, at("old.csv"), &err), TLM_OK);
    assert_int_equal(tlm_outset_check(&s, at("fifo"), &err), TLM_EINVAL);
    assert_int_equal(tlm_outset_check(&s, at("lnk"), &err), TLM_EINVAL);
    /* an input, by any name: same path, hard link, symlink */
    put(at("trace.json"), "{}");
    assert_int_equal(tlm_outset_add_input(&s, at("trace.json"), &err),
                     TLM_OK);
    assert_int_equal(link(at("trace.json"), at("hard.json")), 0);
    assert_int_equal(symlink(at("trace.json"), at("soft.json")), 0);
    assert_int_equal(tlm_outset_check(&s, at("trace.json"), &err),
                     TLM_EINVAL);
    assert_non_null(strstr(err.msg, "input"));
    assert_int_equal(tlm_outset_check(&s, at("hard.json"), &err),
                     TLM_EINVAL);
    assert_int_equal(tlm_outset_check(&s, at("soft.json"), &err),
                     TLM_EINVAL);
    /* a folder that cannot be made: under a regular file */
    assert_int_equal(tlm_outset_check(&s, at("old.csv/x/y.h5"), &err),
                     TLM_EIO);
    assert_non_null(strstr(err.file, "old.csv"));
    tlm_outset_free(&s);
}

static void test_commit(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    put(at("one.csv"), "old1");
    assert_int_equal(tlm_outset_init(&s, 1, &err), TLM_OK);
    stage_text(&s, at("one.csv"), "new1");
    stage_text(&s, at("two.csv"), "new2");
    /* staged: nothing published yet */
    assert_string_equal(get(at("one.csv")), "old1");
    assert_string_equal(get(at("two.csv")), "");
    assert_int_equal(tlm_outset_commit(&s, &err), TLM_OK);
    assert_string_equal(get(at("one.csv")), "new1");
    assert_string_equal(get(at("two.csv")), "new2");
    tlm_outset_free(&s);
    assert_int_equal(count_files(), 2); /* no temporary, no old copy */
    /* the same output twice in one set is refused */
    assert_int_equal(tlm_outset_init(&s, 1, &err), TLM_OK);
    stage_text(&s, at("one.csv"), "x");
    const char *tmp;
    assert_int_equal(tlm_outset_stage(&s, at("one.csv"), &tmp, &err),
                     TLM_EINVAL);
    tlm_outset_free(&s);
    assert_int_equal(count_files(), 2); /* freed unpublished: removed */
    assert_string_equal(get(at("one.csv")), "new1");
}

/* Folders the checks created: removed when the set is freed without a
 * commit (innermost first, and only while empty), kept after one. */
static void test_made_folders(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    struct stat sb;
    assert_int_equal(tlm_outset_init(&s, 0, &err), TLM_OK);
    assert_int_equal(tlm_outset_check(&s, at("a/b/c/one.csv"), &err),
                     TLM_OK);
    assert_int_equal(stat(at("a/b/c"), &sb), 0);
    stage_text(&s, at("a/b/c/one.csv"), "x");
    tlm_outset_free(&s); /* nothing committed */
    assert_int_not_equal(stat(at("a"), &sb), 0);
    assert_int_equal(count_files(), 0);
    /* a folder that holds a file of someone else's stays */
    assert_int_equal(tlm_outset_init(&s, 0, &err), TLM_OK);
    assert_int_equal(tlm_outset_check(&s, at("a/b/one.csv"), &err), TLM_OK);
    put(at("a/other"), "theirs");
    tlm_outset_free(&s);
    assert_int_equal(stat(at("a/b"), &sb) == 0, 0);
    assert_string_equal(get(at("a/other")), "theirs");
    /* committed: the folders stay */
    assert_int_equal(tlm_outset_init(&s, 0, &err), TLM_OK);
    assert_int_equal(tlm_outset_check(&s, at("d/e/one.csv"), &err), TLM_OK);
    stage_text(&s, at("d/e/one.csv"), "y");
    assert_int_equal(tlm_outset_commit(&s, &err), TLM_OK);
    tlm_outset_free(&s);
    assert_string_equal(get(at("d/e/one.csv")), "y");
}

/* The test's rename(): fails the fail_rename_at-th call (with EXDEV), to
 * break a commit in its middle. */
static int fail_rename_at, n_rename;

int rename(const char *from, const char *to)
{
    if (fail_rename_at && ++n_rename == fail_rename_at) {
        errno = EXDEV;
        return -1;
    }
    return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

/* A rename fails in the middle of the commit: the files published before
 * it get their previous contents back, the new ones disappear, and no
 * temporary or kept-aside copy is left. */
static void test_rollback(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    put(at("a.csv"), "oldA");
    put(at("c.csv"), "oldC");
    assert_int_equal(tlm_outset_init(&s, 1, &err), TLM_OK);
    stage_text(&s, at("a.csv"), "newA");
    stage_text(&s, at("b.csv"), "newB");
    stage_text(&s, at("c.csv"), "newC");
    stage_text(&s, at("d.csv"), "newD");
    n_rename = 0;
    fail_rename_at = 3;
    assert_int_equal(tlm_outset_commit(&s, &err), TLM_EIO);
    fail_rename_at = 0;
    assert_non_null(strstr(err.file, "c.csv"));
    assert_non_null(strstr(err.msg, "Invalid cross-device link"));
    assert_string_equal(get(at("a.csv")), "oldA");
    assert_string_equal(get(at("b.csv")), "");
    assert_string_equal(get(at("c.csv")), "oldC");
    assert_string_equal(get(at("d.csv")), "");
    tlm_outset_free(&s);
    assert_int_equal(count_files(), 2);
}

/* A final name that became a folder after the check: the commit stops
 * before publishing anything. */
static void test_changed_under_us(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    put(at("a.csv"), "oldA");
    assert_int_equal(tlm_outset_init(&s, 1, &err), TLM_OK);
    stage_text(&s, at("a.csv"), "newA");
    stage_text(&s, at("c.csv"), "newC");
    assert_int_equal(mkdir(at("c.csv"), 0700), 0);
    assert_int_equal(tlm_outset_commit(&s, &err), TLM_EIO);
    assert_non_null(strstr(err.file, "c.csv"));
    assert_string_equal(get(at("a.csv")), "oldA");
    tlm_outset_free(&s);
    assert_int_equal(count_files(), 2); /* a.csv and the folder c.csv */
}

/* Temporaries of dead processes of this host are removed by the next
 * check of the same output; a live process's are kept; a previous file
 * kept aside by a dead process is put back when the final is missing. */
static void test_sweep(void **state)
{
    (void)state;
    tlm_outset s;
    tlm_error err;
    assert_int_equal(tlm_outset_init(&s, 0, &err), TLM_OK);
    const char *host = strchr(s.tag, '@') + 1;
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    char dead[400], live[400], old[400], other[400];
    snprintf(dead, sizeof dead, "%s/r.h5.tlmpi-%ld@%s.tmp", dir, (long)child,
             host);
    snprintf(live, sizeof live, "%s/r.h5.tlmpi-%ld@%s.tmp", dir,
             (long)getppid(), host);
    snprintf(old, sizeof old, "%s/r.h5.tlmpi-%ld@%s.old", dir, (long)child,
             host);
    snprintf(other, sizeof other, "%s/r.h5.tlmpi-%ld@elsewhere.tmp", dir,
             (long)child);
    put(dead, "d");
    put(live, "l");
    put(old, "previous");
    put(other, "o");
    assert_int_equal(tlm_outset_check(&s, at("r.h5"), &err), TLM_EEXIST);
    assert_string_equal(get(dead), "");
    assert_string_equal(get(live), "l");
    assert_string_equal(get(other), "o");
    assert_string_equal(get(at("r.h5")), "previous"); /* put back */
    tlm_outset_free(&s);
    unlink(live);
    unlink(other);
    unlink(at("r.h5"));
}

/* A stream with a write error reports it with the errno text. */
static void test_fclose(void **state)
{
    (void)state;
    tlm_error err;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    fputs("x", f);
    assert_int_equal(tlm_outset_fclose(f, "/dev/full", &err), TLM_EIO);
    assert_non_null(strstr(err.msg, "No space left on device"));
    f = fopen(at("ok.txt"), "w");
    fputs("x", f);
    assert_int_equal(tlm_outset_fclose(f, at("ok.txt"), &err), TLM_OK);
    unlink(at("ok.txt"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_made_folders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_under_us, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fclose, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
