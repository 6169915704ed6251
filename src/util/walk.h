/*
 * walk.h - the one folder walker: a folder's entries in byte order of
 * their names (tlm_dir_list), and a walk below a root (tlm_walk) with a
 * depth limit, a rule for symbolic links (to folders, to files), a bound
 * on the entries of a folder, two orders (each sub-folder when it is met,
 * or a folder's entries before its sub-folders) and an explicit stack (no
 * recursion).  Errors are a tlm_status with a tlm_error; nothing prints.
 */
#ifndef TLM_WALK_H
#define TLM_WALK_H

#include <stddef.h>
#include <sys/stat.h>

#include "tlmpi/tlm_common.h"

/* tlm_dir_list flags. */
#define TLM_DIR_NO_HIDDEN 1u /* leave out names starting with '.' */
#define TLM_DIR_TRUNCATE 2u  /* over max: keep the first max names read */

/* The names of folder dir ("." and ".." left out), sorted by strcmp, into
 * *names (each and the array malloc'd; free with tlm_dir_free), *n of
 * them.  max bounds the count (0: no bound): over it, TLM_ELIMIT, or with
 * TLM_DIR_TRUNCATE the first max names readdir returned (then sorted).
 * Errors: TLM_EIO "cannot list: <strerror>" (file dir) when the folder
 * cannot be opened, errno then that of opendir; TLM_ENOMEM; TLM_ELIMIT. */
tlm_status tlm_dir_list(const char *dir, unsigned flags, size_t max,
                        char ***names, size_t *n, tlm_error *err);

/* Frees what tlm_dir_list returned (names may be NULL). */
void tlm_dir_free(char **names, size_t n);

/* What an entry met by tlm_walk is. */
typedef enum tlm_walk_kind {
    TLM_WALK_FILE,      /* a regular file (or a link to one, followed) */
    TLM_WALK_DIR,       /* a folder (or a link to one, followed) */
    TLM_WALK_DIR_LINK,  /* a symbolic link to a folder, not followed */
    TLM_WALK_FILE_LINK, /* a symbolic link to a regular file, not followed */
    TLM_WALK_OTHER,     /* FIFO, socket, device (or a link to one) */
    TLM_WALK_BROKEN,    /* a symbolic link to nothing */
    TLM_WALK_NOSTAT,    /* lstat failed (errno in err) */
    TLM_WALK_UNLISTED   /* a folder (the root too) that cannot be listed */
} tlm_walk_kind;

/* One entry, handed to the callback. */
typedef struct tlm_walk_entry {
    const char *path;  /* parent's path "/" name (the root as given) */
    const char *rel;   /* relative to the root ("a/b"; the root is ".") */
    const char *name;  /* the last component (the root: its path) */
    int depth;         /* depth of the folder holding it (root's entries
                          0); TLM_WALK_UNLISTED: the folder's own depth */
    tlm_walk_kind kind;
    int is_link;       /* lstat said: a symbolic link */
    int err;           /* errno for TLM_WALK_NOSTAT and TLM_WALK_UNLISTED */
    struct stat st;    /* lstat, or stat of the target when followed */
    int descend;       /* TLM_WALK_DIR: 1 when within the depth limit; the
                          callback may set it to 0 to leave it out */
} tlm_walk_entry;

/* The callback: TLM_OK goes on; anything else stops the walk and is what
 * tlm_walk returns (err is tlm_walk's, for the callback to fill). */
typedef tlm_status (*tlm_walk_fn)(void *ctx, tlm_walk_entry *e,
                                  tlm_error *err);

typedef struct tlm_walk_opts {
    int max_depth;         /* deepest folder read (0: the root only) */
    int follow_dir_links;  /* links to folders are folders (descended) */
    int follow_file_links; /* links to files are files (else FILE_LINK) */
    int subdirs_last;      /* a folder's entries, then its sub-folders
                              (else each sub-folder when it is met) */
    unsigned list_flags;   /* TLM_DIR_* for each folder */
    size_t max_entries;    /* per folder, as tlm_dir_list's max */
} tlm_walk_opts;

/* Walks root: every entry of every folder read, in name order, to fn.  A
 * folder that cannot be listed (the root included) is handed to fn as
 * TLM_WALK_UNLISTED.  Errors: fn's status; TLM_ENOMEM ("out of memory")
 * and TLM_ELIMIT (a folder over max_entries) with err filled. */
tlm_status tlm_walk(const char *root, const tlm_walk_opts *o, tlm_walk_fn fn,
                    void *ctx, tlm_error *err);

#endif /* TLM_WALK_H */
