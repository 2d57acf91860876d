/* dump_trace.c -- a tracepoint sample's fields as perf script prints
 * them, for pclndump perf: the profile's tracing data (the events'
 * formats, pcln_perf_tracing_data) parsed with libtraceevent, and each
 * sample's raw data printed with its event's print format
 * (tep_print_event, TEP_PRINT_INFO, as perf's event_format__fprintf).
 *
 * The tracing data, as perf writes it (tools/perf/util/
 * trace-event-info.c; read by trace-event-read.c), numbers in the
 * file's byte order:
 *   "\027\010\104tracing", a version string ("0.6\0"), u8 big-endian,
 *   u8 sizeof(long), u32 page size;
 *   "header_page\0", u64 size, the ring buffer page's format;
 *   "header_event\0", u64 size, skipped;
 *   u32 count, then per ftrace event u64 size and its format;
 *   u32 systems, then per system its name (NUL), u32 count, then per
 *   event u64 size and its format;
 *   then kallsyms and printk formats (u32 size each) and, from version
 *   0.6, saved command lines (u64 size): not read (perf's %pS and
 *   bprint arguments, and comms from pids, print as libtraceevent
 *   prints them without).
 * Everything is bounds-checked; a format libtraceevent refuses is
 * skipped (its samples print no fields), the rest is kept.
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dump.h"
#include "dump_perf.h"

#ifdef HAVE_LIBTRACEEVENT
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

/* The child's side: libtraceevent's handle. */
struct tside {
	struct tep_handle *tep;
	char *copy;			/* the tracing data (tep writes) */
	struct trace_seq seq;
	size_t nevents, nbad;
};

struct rd {
	const uint8_t *p, *end;
	int big;
};

static int
take(struct rd *r, size_t n, const uint8_t **out)
{
	if ((size_t)(r->end - r->p) < n)
		return -1;
	*out = r->p;
	r->p += n;
	return 0;
}

static int
num(struct rd *r, size_t n, uint64_t *v)
{
	const uint8_t *b;
	size_t i;

	if (take(r, n, &b) < 0)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)b[r->big ? n - 1 - i : i] << (8 * i);
	return 0;
}

static const char *
cstr(struct rd *r)
{
	const uint8_t *z = memchr(r->p, '\0', (size_t)(r->end - r->p));
	const char *s = (const char *)r->p;

	if (z == NULL)
		return NULL;
	r->p = z + 1;
	return s;
}

/* Is LINE[0..N) "\tfield:TYPE NAME;\toffset:D;\tsize:D;\tsigned:D;"
 * (TYPE NAME of letters, digits, '_', ' ', '*' and "[D]" / "[]"),
 * as the kernel writes them? */
static int
field_line(const char *l, size_t n)
{
	static const char *const keys[] = { "offset:", "size:", "signed:" };
	size_t i = 0, k, brackets = 0;

	if (n < 7 || memcmp(l, "\tfield:", 7) != 0)
		return 0;
	for (i = 7; i < n && l[i] != ';'; i++) {
		char ch = l[i];

		if (ch == '[') {
			if (brackets++)
				return 0;
		} else if (ch == ']') {
			if (!brackets--)
				return 0;
		} else if (!(ch == '_' || ch == ' ' || ch == '*' ||
		    (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= 'A' && ch <= 'Z')))
			return 0;
	}
	if (i == n || brackets != 0 || i == 7)
		return 0;
	i++;
	for (k = 0; k < 3; k++) {
		size_t kl = strlen(keys[k]), d = 0;

		if (n - i < kl + 1 || l[i] != '\t' ||
		    memcmp(l + i + 1, keys[k], kl) != 0)
			return 0;
		for (i += 1 + kl; i < n && l[i] >= '0' && l[i] <= '9'; i++)
			d++;
		if (d == 0 || d > 9 || i == n || l[i] != ';')
			return 0;
		i++;
	}
	return i == n;
}

/* Is TEXT[0..N) a tracepoint format as the kernel writes one: "name:
 * NAME", "ID: D", "format:", field lines and empty ones, then "print
 * fmt: ..." to the end, all printable ASCII (2,323 of 2,323 formats of
 * Linux 6.18 are)?  libtraceevent's parser is no guard against
 * damaged text (a byte in a field's type crashed it): what it reads is
 * checked here first. */
static int
format_ok(const char *text, size_t n)
{
	size_t i, start, line = 0;
	int printfmt = 0;

	for (i = 0; i < n; i++)
		if (!((text[i] >= 0x20 && text[i] < 0x7f) || text[i] == '\t' ||
		    text[i] == '\n'))
			return 0;
	for (start = 0; start < n; line++) {
		const char *l = text + start, *nl = memchr(l, '\n', n - start);
		size_t len = nl != NULL ? (size_t)(nl - l) : n - start;

		start += len + 1;
		if (printfmt)
			break;	/* its string may hold newlines */
		if (line == 0 ? len < 7 || memcmp(l, "name: ", 6) != 0 :
		    line == 1 ? len < 5 || memcmp(l, "ID: ", 4) != 0 ||
		    strspn(l + 4, "0123456789") != len - 4 :
		    line == 2 ? len != 7 || memcmp(l, "format:", 7) != 0 :
		    0)
			return 0;
		if (line < 3 || len == 0)
			continue;
		if (len >= 11 && memcmp(l, "print fmt: ", 11) == 0)
			printfmt = 1;
		else if (!field_line(l, len))
			return 0;
	}
	return printfmt;
}

/* COUNT formats (u64 size and the text each) of SYSTEM into T; one that
 * is not a format as the kernel writes it is skipped (counted). */
static int
formats(struct tside *t, struct rd *r, uint64_t count,
    const char *system)
{
	uint64_t i, n;
	const uint8_t *b;

	for (i = 0; i < count; i++) {
		if (num(r, 8, &n) < 0 || n > (uint64_t)(r->end - r->p) ||
		    take(r, (size_t)n, &b) < 0)
			return -1;
		if (format_ok((const char *)b, (size_t)n) &&
		    tep_parse_event(t->tep, (const char *)b, (unsigned long)n,
		    system) == 0)
			t->nevents++;
		else
			t->nbad++;
	}
	return 0;
}

/* The kernel's function names, for libtraceevent (%ps, %pS): the
 * tracing data has none (perf writes an empty kallsyms there since 2019
 * and names them from the running kernel's, as pclndump does). */
struct kres {
	dump_ksym_fn *fn;
	void *arg;
};

static char *
resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct kres *k = priv;
	uint64_t start = 0;
	const char *mod = NULL, *name;

	if (k->fn == NULL ||
	    (name = k->fn(k->arg, *addrp, &start, &mod)) == NULL)
		return NULL;
	*addrp = start;
	if (modp != NULL)
		*modp = (char *)(uintptr_t)mod;
	return (char *)(uintptr_t)name;
}

static struct tside *
side_open(const uint8_t *data, size_t len, char *why, size_t whylen)
{
	static const uint8_t magic[] = "\027\010\104tracing";
	struct tside *t;
	struct rd r;
	const uint8_t *b;
	const char *s;
	uint64_t v, n, sys;

	why[0] = '\0';
	if ((t = calloc(1, sizeof *t)) == NULL ||
	    (t->copy = malloc(len + 1)) == NULL ||
	    (t->tep = tep_alloc()) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	/* tep parses in place: a copy of its own, NUL after it. */
	memcpy(t->copy, data, len);
	t->copy[len] = '\0';
	r.p = (const uint8_t *)t->copy;
	r.end = r.p + len;
	r.big = 0;
	if (take(&r, 10, &b) < 0 || memcmp(b, magic, 10) != 0) {
		snprintf(why, whylen, "no \"\\027\\010\\104tracing\" at its "
		    "start");
		goto fail;
	}
	if ((s = cstr(&r)) == NULL || take(&r, 2, &b) < 0) {
		snprintf(why, whylen, "its header is cut short");
		goto fail;
	}
	r.big = b[0] != 0;
	tep_set_file_bigendian(t->tep, r.big ? TEP_BIG_ENDIAN :
	    TEP_LITTLE_ENDIAN);
	{
		const uint16_t one = 1;

		tep_set_local_bigendian(t->tep, *(const uint8_t *)&one == 0 ?
		    TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	}
	tep_set_long_size(t->tep, b[1]);
	if (num(&r, 4, &v) < 0) {
		snprintf(why, whylen, "its header is cut short");
		goto fail;
	}
	tep_set_page_size(t->tep, (int)v);
	if (take(&r, 12, &b) < 0 || memcmp(b, "header_page", 12) != 0 ||
	    num(&r, 8, &n) < 0 || n > (uint64_t)(r.end - r.p) ||
	    take(&r, (size_t)n, &b) < 0) {
		snprintf(why, whylen, "no header_page after the header");
		goto fail;
	}
	if (tep_parse_header_page(t->tep, (char *)(uintptr_t)b,
	    (unsigned long)n, tep_get_long_size(t->tep)) == 0)
		tep_set_long_size(t->tep, tep_get_header_page_size(t->tep));
	if (take(&r, 13, &b) < 0 || memcmp(b, "header_event", 13) != 0 ||
	    num(&r, 8, &n) < 0 || n > (uint64_t)(r.end - r.p) ||
	    take(&r, (size_t)n, &b) < 0) {
		snprintf(why, whylen, "no header_event after header_page");
		goto fail;
	}
	if (num(&r, 4, &n) < 0 || formats(t, &r, n, "ftrace") < 0) {
		snprintf(why, whylen, "the ftrace formats are cut short");
		goto fail;
	}
	if (num(&r, 4, &sys) < 0) {
		snprintf(why, whylen, "no event systems");
		goto fail;
	}
	for (; sys > 0; sys--)
		if ((s = cstr(&r)) == NULL || num(&r, 4, &n) < 0 ||
		    formats(t, &r, n, s) < 0) {
			snprintf(why, whylen, "the event formats are cut "
			    "short");
			goto fail;
		}
	trace_seq_init(&t->seq);
	return t;
fail:
	if (t != NULL) {
		if (t->tep != NULL)
			tep_free(t->tep);
		free(t->copy);
		free(t);
	}
	return NULL;
}

/* Does every field of E, and every dynamic array's data, lie within
 * RAW[0..N)?  libtraceevent reads where the format says. */
static int
fits(const struct tside *t, const struct tep_event *e,
    const uint8_t *raw, size_t n)
{
	const struct tep_format_field *f;
	int big = tep_is_file_bigendian(t->tep);
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (f = pass ? e->format.fields : e->format.common_fields;
		    f != NULL; f = f->next) {
			uint32_t loc, off, len;
			size_t i;

			if (f->offset < 0 || f->size < 0 ||
			    (size_t)f->offset + (size_t)f->size > n)
				return 0;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (f->size != 4)
				return 0;
			for (loc = 0, i = 0; i < 4; i++)
				loc |= (uint32_t)raw[f->offset + (big ? 3 - i :
				    i)] << (8 * i);
			off = loc & 0xffff;
			len = loc >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += (uint32_t)(f->offset + f->size);
			if ((size_t)off + len > n)
				return 0;
		}
	return 1;
}

static const char *
side_info(struct tside *t, uint64_t id, uint32_t cpu, const uint8_t *raw,
    size_t n)
{
	struct tep_event *e;
	struct tep_record rec;

	if (t == NULL || raw == NULL || id > INT32_MAX ||
	    (e = tep_find_event(t->tep, (int)id)) == NULL ||
	    !fits(t, e, raw, n))
		return NULL;
	memset(&rec, 0, sizeof rec);
	rec.cpu = (int)cpu;
	rec.size = (int)n;
	rec.data = (void *)(uintptr_t)raw;
	trace_seq_reset(&t->seq);
	tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t->seq);
	return t->seq.buffer;
}

static int
side_name(struct tside *t, uint64_t id, char *buf, size_t n)
{
	struct tep_event *e;

	if (t == NULL || id > INT32_MAX ||
	    (e = tep_find_event(t->tep, (int)id)) == NULL)
		return 0;
	snprintf(buf, n, "%s:%s", e->system, e->name);
	return 1;
}

/* --- the parent's side --------------------------------------------- */

/* libtraceevent is no guard against a damaged or crafted format: a
 * print format with "%" where an operator goes divides by zero (SIGFPE),
 * a byte in a field's type crashed its parser.  So it runs in a child
 * process of its own, the formats parsed and each sample's fields
 * printed there, over a socket: if it dies or stops answering, the
 * samples from there on are printed without fields, with one message
 * saying why, and pclndump goes on. */
struct dump_trace {
	pid_t pid;
	int fd;
	int dead;
	char *reply;
	size_t capreply;
};

#define OP_NAME		1
#define OP_INFO		2
#define REPLY_MAX	(1u << 16)
#define REPLY_MS	5000	/* a child silent for this long is killed */

struct req {
	uint32_t op, cpu, n, pad;
	uint64_t id;
};

static int
put(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* N bytes from FD, waiting at most MS milliseconds for each part (-1:
 * for ever). */
static int
get(int fd, void *buf, size_t n, int ms)
{
	char *p = buf;

	while (n > 0) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;
		int k = poll(&pf, 1, ms);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		if ((r = read(fd, p, n)) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int
reply(int fd, uint32_t status, const char *text)
{
	uint32_t h[2];

	h[0] = status;
	h[1] = text != NULL ? (uint32_t)strnlen(text, REPLY_MAX - 1) : 0;
	if (put(fd, h, sizeof h) < 0 || (h[1] > 0 && put(fd, text, h[1]) < 0))
		return -1;
	return 0;
}

/* The child: answer requests until the parent closes its end. */
static void __attribute__((noreturn))
child(int fd, const uint8_t *data, size_t len, struct kres *k)
{
	char why[200], name[256];
	struct tside *t = side_open(data, len, why, sizeof why);
	uint8_t *raw = NULL;
	size_t capraw = 0;
	struct req q;

	if (reply(fd, t != NULL ? 0 : 1, t != NULL ? "" : why) < 0 ||
	    t == NULL)
		_exit(0);
	(void)tep_set_function_resolver(t->tep, resolve, k);
	while (get(fd, &q, sizeof q, -1) == 0) {
		const char *out = NULL;

		if (q.n > capraw) {
			free(raw);
			capraw = q.n;
			if ((raw = malloc(capraw)) == NULL)
				_exit(1);
		}
		if (q.n > 0 && get(fd, raw, q.n, -1) < 0)
			break;
		if (q.op == OP_NAME && side_name(t, q.id, name, sizeof name))
			out = name;
		else if (q.op == OP_INFO)
			out = side_info(t, q.id, q.cpu, raw, q.n);
		if (reply(fd, out != NULL ? 0 : 1, out) < 0)
			break;
	}
	_exit(0);
}

/* The child is gone: say why, once. */
static void
died(struct dump_trace *t)
{
	int st = 0;

	if (t->dead)
		return;
	t->dead = 1;
	kill(t->pid, SIGKILL);
	if (waitpid(t->pid, &st, 0) == t->pid && WIFSIGNALED(st))
		dump_error("perf: libtraceevent failed on the profile's "
		    "tracing data (signal %d, %s): tracepoints' fields are "
		    "not printed from here on", WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
	else
		dump_error("perf: libtraceevent stopped answering: "
		    "tracepoints' fields are not printed from here on");
	close(t->fd);
	t->fd = -1;
}

/* The child's reply: its status and length in H, its text in T->reply
 * (NUL-terminated).  -1: it is gone, silent or makes no sense. */
static int
get_reply(struct dump_trace *t, uint32_t h[2])
{
	if (get(t->fd, h, 2 * sizeof h[0], REPLY_MS) < 0 || h[1] >= REPLY_MAX)
		return -1;
	if (h[1] >= t->capreply) {
		free(t->reply);
		t->capreply = h[1] + 1;
		if ((t->reply = malloc(t->capreply)) == NULL) {
			t->capreply = 0;
			return -1;
		}
	}
	if (h[1] > 0 && get(t->fd, t->reply, h[1], REPLY_MS) < 0)
		return -1;
	t->reply[h[1]] = '\0';
	return 0;
}

/* Ask the child; its answer in T->reply, or NULL. */
static const char *
ask(struct dump_trace *t, uint32_t op, uint64_t id, uint32_t cpu,
    const uint8_t *raw, size_t n)
{
	struct req q;
	uint32_t h[2];

	if (t == NULL || t->dead || n > UINT32_MAX)
		return NULL;
	memset(&q, 0, sizeof q);
	q.op = op;
	q.cpu = cpu;
	q.n = (uint32_t)n;
	q.id = id;
	if (put(t->fd, &q, sizeof q) < 0 || (n > 0 && put(t->fd, raw, n) < 0) ||
	    get_reply(t, h) < 0) {
		died(t);
		return NULL;
	}
	return h[0] == 0 ? t->reply : NULL;
}

struct dump_trace *
dump_trace_open(const uint8_t *data, size_t len, dump_ksym_fn *ksym,
    void *arg, char *why, size_t whylen)
{
	struct dump_trace *t;
	struct kres k = { ksym, arg };
	int sv[2];
	uint32_t h[2];

	why[0] = '\0';
	if ((t = calloc(1, sizeof *t)) == NULL ||
	    (t->reply = malloc(t->capreply = 256)) == NULL) {
		free(t);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		goto fail;
	}
	fflush(NULL);	/* (the child leaves by _exit: no double output) */
	if ((t->pid = fork()) < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	if (t->pid == 0) {
		close(sv[0]);
		child(sv[1], data, len, &k);
	}
	close(sv[1]);
	t->fd = sv[0];
	/* Its first answer: the formats read, or why not. */
	if (get_reply(t, h) < 0) {
		int st = 0;

		kill(t->pid, SIGKILL);
		if (waitpid(t->pid, &st, 0) == t->pid && WIFSIGNALED(st) &&
		    WTERMSIG(st) != SIGKILL)
			snprintf(why, whylen, "libtraceevent failed on it "
			    "(signal %d, %s)", WTERMSIG(st),
			    strsignal(WTERMSIG(st)));
		else
			snprintf(why, whylen, "libtraceevent failed on it");
		close(t->fd);
		goto fail;
	}
	if (h[0] != 0) {
		snprintf(why, whylen, "%s", t->reply);
		close(t->fd);
		waitpid(t->pid, NULL, 0);
		goto fail;
	}
	return t;
fail:
	free(t->reply);
	free(t);
	return NULL;
}

const char *
dump_trace_info(struct dump_trace *t, uint64_t id, uint32_t cpu,
    const uint8_t *raw, size_t n)
{
	return raw != NULL ? ask(t, OP_INFO, id, cpu, raw, n) : NULL;
}

int
dump_trace_name(struct dump_trace *t, uint64_t id, char *buf, size_t n)
{
	const char *s = ask(t, OP_NAME, id, 0, NULL, 0);

	if (s == NULL)
		return 0;
	snprintf(buf, n, "%s", s);
	return 1;
}

void
dump_trace_close(struct dump_trace *t)
{
	if (t == NULL)
		return;
	if (!t->dead) {
		close(t->fd);	/* the child sees the end and leaves */
		waitpid(t->pid, NULL, 0);
	}
	free(t->reply);
	free(t);
}

#else /* !HAVE_LIBTRACEEVENT */

struct dump_trace *
dump_trace_open(const uint8_t *data, size_t len, dump_ksym_fn *ksym,
    void *arg, char *why, size_t whylen)
{
	(void)data, (void)len, (void)ksym, (void)arg;
	snprintf(why, whylen, "pclndump was built without libtraceevent");
	return NULL;
}

const char *
dump_trace_info(struct dump_trace *t, uint64_t id, uint32_t cpu,
    const uint8_t *raw, size_t n)
{
	(void)t, (void)id, (void)cpu, (void)raw, (void)n;
	return NULL;
}

int
dump_trace_name(struct dump_trace *t, uint64_t id, char *buf, size_t n)
{
	(void)t, (void)id, (void)buf, (void)n;
	return 0;
}

void
dump_trace_close(struct dump_trace *t)
{
	(void)t;
}

#endif
