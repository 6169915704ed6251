/*
 * test_walk.c - the folder walker (src/util/walk.c): names in byte order,
 * hidden names, the entry bound (error or truncation), the depth limit,
 * both orders, symbolic links to folders and files (followed or not),
 * broken links, a FIFO, an unreadable folder, a missing root.  Real files
 * in a fresh temporary folder.
 */
#define _GNU_SOURCE 1
#include <errno.h>
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

#include "walk.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tlm_walk_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Makes dir/rel: a folder when rel ends in '/', else an empty file. */
static void mk(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    size_t n = strlen(p);
    if (p[n - 1] == '/') {
        p[n - 1] = 0;
        assert_int_equal(mkdir(p, 0755), 0);
    } else {
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fclose(f);
    }
}

/* dir/rel as a symbolic link to target. */
static void mklink(const char *target, const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(symlink(target, p), 0);
}

static const char *const kind_tag[] = {"F", "D", "DL", "FL",
                                       "O", "B", "NS", "U"};

/* The walk as text: "tag:rel:depth " per entry. */
typedef struct rec {
    char buf[4096];
} rec;

/* Records each entry (tlm_walk_fn). */
static tlm_status record(void *ctx, tlm_walk_entry *e, tlm_error *err)
{
    rec *r = ctx;
    (void)err;
    size_t n = strlen(r->buf);
    snprintf(r->buf + n, sizeof r->buf - n, "%s:%s:%d%s ", kind_tag[e->kind],
             e->rel, e->depth,
             e->kind == TLM_WALK_DIR && !e->descend ? "!" : "");
    return TLM_OK;
}

/* Walks dir with o into r; returns the status. */
static tlm_status walk(const tlm_walk_opts *o, rec *r, tlm_error *err)
{
    r->buf[0] = 0;
    return tlm_walk(dir, o, record, r, err);
}

static void test_list_order(void **state)
{
    (void)state;
    mk("b");
    mk("a-b");
    mk("a");
    mk("B");
    mk(".hidden");
    char **v;
    size_t n;
    tlm_error err;
    assert_int_equal(tlm_dir_list(dir, 0, 0, &v, &n, &err), TLM_OK);
    assert_int_equal(n, 5);
    const char *want[] = {".hidden", "B", "a", "a-b", "b"};
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
    tlm_dir_free(v, n);
    assert_int_equal(tlm_dir_list(dir, TLM_DIR_NO_HIDDEN, 0, &v, &n, &err),
                     TLM_OK);
    assert_int_equal(n, 4);
    assert_string_equal(v[0], "B");
    tlm_dir_free(v, n);
}

static void test_list_bound(void **state)
{
    (void)state;
    mk("a");
    mk("b");
    mk("c");
    char **v;
    size_t n;
    tlm_error err;
    assert_int_equal(tlm_dir_list(dir, 0, 3, &v, &n, &err), TLM_OK);
    assert_int_equal(n, 3);
    tlm_dir_free(v, n);
    assert_int_equal(tlm_dir_list(dir, 0, 2, &v, &n, &err), TLM_ELIMIT);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, "more than 2 entries"));
    assert_int_equal(tlm_dir_list(dir, TLM_DIR_TRUNCATE, 2, &v, &n, &err),
                     TLM_OK);
    assert_int_equal(n, 2);
    assert_true(strcmp(v[0], v[1]) < 0);
    tlm_dir_free(v, n);
}

static void test_list_missing(void **state)
{
    (void)state;
    char p[512], **v;
    size_t n;
    tlm_error err;
    snprintf(p, sizeof p, "%s/none", dir);
    assert_int_equal(tlm_dir_list(p, 0, 0, &v, &n, &err), TLM_EIO);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(err.file, p);
    assert_string_equal(err.msg, "cannot list: No such file or directory");
    rec r;
    tlm_walk_opts o = {0};
    r.buf[0] = 0;
    assert_int_equal(tlm_walk(p, &o, record, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "U:.:0 ");
}

static void test_orders_and_depth(void **state)
{
    (void)state;
    mk("z");
    mk("a/");
    mk("a/x");
    mk("a/s/");
    mk("a/s/y");
    mk("b/");
    mk("b/w");
    rec r;
    tlm_error err;
    tlm_walk_opts o = {.max_depth = 5};
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "D:a:0 D:a/s:1 F:a/s/y:2 F:a/x:1 D:b:0 "
                               "F:b/w:1 F:z:0 ");
    o.subdirs_last = 1;
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "D:a:0 D:b:0 F:z:0 D:a/s:1 F:a/x:1 "
                               "F:a/s/y:2 F:b/w:1 ");
    o.max_depth = 1;
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "D:a:0 D:b:0 F:z:0 D:a/s:1! F:a/x:1 "
                               "F:b/w:1 ");
    o.max_depth = 0;
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "D:a:0! D:b:0! F:z:0 ");
}

static void test_links_and_fifo(void **state)
{
    (void)state;
    mk("d/");
    mk("d/f");
    mk("f");
    mklink("d", "ld");
    mklink("f", "lf");
    mklink("nothing", "lb");
    char p[512];
    snprintf(p, sizeof p, "%s/q", dir);
    assert_int_equal(mkfifo(p, 0644), 0);
    rec r;
    tlm_error err;
    tlm_walk_opts o = {.max_depth = 3};
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "D:d:0 F:d/f:1 F:f:0 B:lb:0 DL:ld:0 "
                               "FL:lf:0 O:q:0 ");
    o.follow_dir_links = o.follow_file_links = 1;
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_string_equal(r.buf, "D:d:0 F:d/f:1 F:f:0 B:lb:0 D:ld:0 "
                               "F:ld/f:1 F:lf:0 O:q:0 ");
}

/* Stops at the second file (tlm_walk_fn). */
static tlm_status stop_second(void *ctx, tlm_walk_entry *e, tlm_error *err)
{
    int *n = ctx;
    if (e->kind == TLM_WALK_FILE && ++*n == 2)
        return tlm_error_set(err, TLM_EEXIST, e->path, -1, "second");
    return TLM_OK;
}

static void test_stop_and_bound(void **state)
{
    (void)state;
    mk("a");
    mk("b");
    mk("c");
    int n = 0;
    tlm_error err;
    tlm_walk_opts o = {0};
    assert_int_equal(tlm_walk(dir, &o, stop_second, &n, &err), TLM_EEXIST);
    assert_string_equal(err.msg, "second");
    o.max_entries = 2;
    rec r;
    assert_int_equal(walk(&o, &r, &err), TLM_ELIMIT);
    assert_string_equal(err.file, dir);
    o.list_flags = TLM_DIR_TRUNCATE;
    assert_int_equal(walk(&o, &r, &err), TLM_OK);
    assert_int_equal(strlen(r.buf), strlen("F:a:0 F:b:0 "));
}

static void test_unreadable(void **state)
{
    (void)state;
    mk("u/");
    mk("u/f");
    char p[512];
    snprintf(p, sizeof p, "%s/u", dir);
    assert_int_equal(chmod(p, 0), 0);
    assert_int_equal(chmod(dir, 0755), 0);
    /* root reads every folder: the walk then runs as nobody */
    int as_root = geteuid() == 0;
    pid_t pid = as_root ? fork() : 0;
    assert_true(pid >= 0);
    if (as_root && pid > 0) {
        int ws;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFEXITED(ws));
        assert_int_equal(WEXITSTATUS(ws), 0);
    } else {
        if (as_root && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        rec r;
        tlm_error err;
        tlm_walk_opts o = {.max_depth = 2};
        int ok = walk(&o, &r, &err) == TLM_OK &&
                 !strcmp(r.buf, "D:u:0 U:u:1 ");
        if (as_root)
            _exit(ok ? 0 : 1);
        assert_true(ok);
    }
    chmod(p, 0755);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_orders_and_depth, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_links_and_fifo, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stop_and_bound, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
