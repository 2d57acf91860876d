/* dump_demangle.c -- names as binutils demangles them: pclndump's -C /
 * --demangle, through libiberty's demangler (the one binutils, gdb and
 * c++filt use: C++, Rust legacy and v0, and D, Ada, Java by style).
 *
 * What binutils 2.40's addr2line -C does, and so what this does:
 * - flags DMGL_PARAMS | DMGL_ANSI (parameters and cv-qualifiers; no
 *   DMGL_VERBOSE, so a Rust legacy name loses its hash "::h0123..."
 *   and a v0 name its crate disambiguator, where c++filt keeps them);
 *   -r / --no-recurse-limit adds DMGL_NO_RECURSE_LIMIT;
 * - --demangle=STYLE selects libiberty's style by name
 *   (cplus_demangle_name_to_style: auto, gnu-v3, java, gnat, dlang,
 *   rust); an unknown style is an error.  The default, auto, tries
 *   Rust, then the C++ ABI: D and Ada names need their style;
 * - the name goes through bfd_demangle's wrapping: leading '.' and '$'
 *   are set aside, a suffix from the first '@' (a symbol version,
 *   "@plt") is cut off, the rest is given to cplus_demangle, and both
 *   are put back around its answer; ELF has no leading underscore to
 *   strip.  A name that does not demangle is printed as it is.
 */
#include <config.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#if defined HAVE_LIBIBERTY_DEMANGLE_H
#include <libiberty/demangle.h>
#else
#include <demangle.h>
#endif

#include "dump.h"

static int dmgl_flags = DMGL_PARAMS | DMGL_ANSI;

int
dump_demangle_style(const char *style)
{
	enum demangling_styles s;

	if (style == NULL)
		return 0;
	s = cplus_demangle_name_to_style(style);
	if (s == unknown_demangling) {
		dump_error("unknown demangling style '%s'", style);
		return -1;
	}
	cplus_demangle_set_style(s);
	return 0;
}

void
dump_demangle_recurse_limit(int on)
{
	if (on)
		dmgl_flags &= ~DMGL_NO_RECURSE_LIMIT;
	else
		dmgl_flags |= DMGL_NO_RECURSE_LIMIT;
}

char *
dump_demangle(const char *name)
{
	const char *pre = name, *suf;
	char *cut = NULL, *res, *out;
	size_t prelen, reslen, suflen;

	if (name == NULL || *name == 0)
		return NULL;
	while (*name == '.' || *name == '$')
		name++;
	prelen = (size_t)(name - pre);
	if ((suf = strchr(name, '@')) != NULL) {
		if ((cut = strndup(name, (size_t)(suf - name))) == NULL)
			return NULL;
		name = cut;
	}
	res = cplus_demangle(name, dmgl_flags);
	free(cut);
	if (res == NULL || (prelen == 0 && suf == NULL))
		return res;
	reslen = strlen(res);
	suflen = suf != NULL ? strlen(suf) : 0;
	if ((out = malloc(prelen + reslen + suflen + 1)) != NULL) {
		memcpy(out, pre, prelen);
		memcpy(out + prelen, res, reslen);
		memcpy(out + prelen + reslen, suf != NULL ? suf : "",
		    suflen + 1);
	}
	free(res);
	return out;
}

const char *
dump_name(const dump_opts *o, const char *name, char **freep)
{
	*freep = o->demangle ? dump_demangle(name) : NULL;
	return *freep != NULL ? *freep : name;
}

void
dump_json_name(json *j, const dump_opts *o, const char *key,
    const char *name)
{
	char *d;

	json_key(j, key);
	json_string(j, name);
	if (!o->demangle)
		return;
	d = dump_demangle(name);
	json_key(j, "demangled");
	json_string(j, d);
	free(d);
}

int
dump_name_match(const dump_opts *o, const char *pattern, const char *name,
    int glob)
{
	char *d;
	int m;

	if (name == NULL)
		return 0;
	m = glob ? fnmatch(pattern, name, 0) == 0 : strcmp(pattern, name) == 0;
	if (m || !o->demangle || (d = dump_demangle(name)) == NULL)
		return m;
	m = glob ? fnmatch(pattern, d, 0) == 0 : strcmp(pattern, d) == 0;
	free(d);
	return m;
}
