/* pcln_out.h -- output files that are never lost, damaged or left behind.
 *
 * What an output PATH names decides how it is written:
 *
 *   "-"               standard output, written in place (descriptor 1);
 *   a device, FIFO    written in place: opened for writing (no
 *   or socket         truncation, no temporary), never renamed over, so
 *                     /dev/null stays a device and a FIFO's reader gets
 *                     the bytes;
 *   a regular file,   replaced atomically: the bytes go to a temporary
 *   or nothing yet    file in the same directory, which is fsync'ed and
 *                     renamed over PATH on commit, so PATH holds its old
 *                     contents or all of the new ones, and a failed or
 *                     interrupted write changes nothing.  The new file
 *                     keeps the permission bits of the one it replaces
 *                     (and, where permitted, its owner and group); a new
 *                     file gets 0666 less the umask.  Other hard links
 *                     to the old file keep the old contents;
 *   a symbolic link   followed (up to 40 links): what it finally names is
 *                     written as above -- a regular file is replaced in
 *                     its own directory and the link stays a link; a
 *                     dangling link creates its target;
 *   a directory       an error.
 *
 * A temporary is named .NAME.pcln-PID-XXXXXX (NAME: the last part of the
 * file's path, cut to 200 bytes; PID the writer's process id) and holds
 * an exclusive flock(2) lock for as long as its writer has it open.
 * Creating an output first removes the stale temporaries of the same
 * NAME in that directory: a regular file of this user so named, whose
 * writer PID is no process (kill(PID, 0) fails with ESRCH) and whose
 * lock nobody holds -- what a writer killed by SIGKILL or a crash left.
 * A file whose writer may be alive (its pid is running, whatever that
 * process now is, or the lock is held), of another name, another owner
 * or another type is never touched.
 *
 * Errors: the functions return 0 (or a handle) on success and -1 (or
 * NULL) with ERR filled on failure: PCLN_EIO with "PATH: what failed:
 * why" (standard output is named "standard output"), PCLN_EINVAL for a
 * path that cannot be an output or two that name the same file,
 * PCLN_ENOMEM.  Nothing here prints.  Only pcln_out_cleanup is
 * async-signal-safe.
 */
#ifndef PCLN_OUT_H
#define PCLN_OUT_H

#include <stddef.h>

#include "pcln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One output in steps: create (a temporary next to PATH, or PATH opened
 * in place; NULL and ERR on failure), write, then commit (fsync, close
 * and rename; frees O) or abort (removes the temporary; frees O; O may
 * be NULL).  Writing in place writes through at once: only a replaced
 * file is all or nothing. */
typedef struct pcln_outfile pcln_outfile;
pcln_outfile *pcln_outfile_create(const char *PATH, pcln_err *ERR);
int pcln_outfile_write(pcln_outfile *O, const void *BUF, size_t LEN,
    pcln_err *ERR);
int pcln_outfile_commit(pcln_outfile *O, pcln_err *ERR);
void pcln_outfile_abort(pcln_outfile *O);

/* Write BUF[0..LEN) to PATH as above: create, write, commit. */
int pcln_write_file_atomic(const char *PATH, const void *BUF, size_t LEN,
    pcln_err *ERR);

/* Several outputs, all or nothing as far as the files allow. */
typedef struct pcln_outbuf {
	const char *path;
	const void *buf;
	size_t len;
} pcln_outbuf;

/* Write the N outputs OUTS: refuse (PCLN_EINVAL, nothing written) two
 * that name the same file -- the same path, the same existing file
 * other than a character device, or the same new name in the same
 * directory, through links or standard output's redirection; write
 * every replaced file's temporary; then write the outputs written in
 * place (standard output, devices, FIFOs) in order; then rename the
 * temporaries.  A failure before the renames removes every temporary,
 * so no existing file changes; the first failure is reported, whatever
 * else succeeded. */
int pcln_write_files(const pcln_outbuf *OUTS, size_t N, pcln_err *ERR);

/* Remove the temporaries of this process's outputs not yet committed or
 * aborted (the memory stays allocated).  Async-signal-safe: for a
 * program's own signal handlers. */
void pcln_out_cleanup(void);

/* For programs: on SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM and SIGXFSZ
 * (each one not ignored when this is called; a signal ignored on entry
 * stays ignored, so that with SIGXFSZ ignored a write over the file-size
 * limit fails with EFBIG instead), remove the temporaries
 * (pcln_out_cleanup) and die of the signal, its default action
 * restored: the exit status is the signal's conventional one.  Returns
 * 0, or -1 if a handler could not be installed. */
int pcln_out_catch_signals(void);

/* For programs, at exit: flush and close stdio's standard output, so
 * that a failed write there (a full disk, a closed pipe) is not lost.
 * Returns -1 with ERR ("standard output: cannot write: why") if any
 * write to it failed, else 0 (also when standard output was closed
 * before the start and nothing was written to it). */
int pcln_close_stdout(pcln_err *ERR);

#ifdef __cplusplus
}
#endif

#endif /* PCLN_OUT_H */
