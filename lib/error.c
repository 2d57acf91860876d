/* error.c -- error codes, their messages, and filling a pcln_err. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define PCLN_ERROR_TEXT_(code, msg) msg,
static const char *const messages[] = { PCLN_ERROR_LIST(PCLN_ERROR_TEXT_) };
#undef PCLN_ERROR_TEXT_

const char *
pcln_strerror(int code)
{
	if (code < 0 || code >= PCLN_NERRORS)
		return "unknown error";
	return messages[code];
}

int
pclni_seterr(pcln_err *err, int code, int64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->code = code;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

void
pclni_clearerr(pcln_err *err)
{
	if (err == NULL)
		return;
	err->code = PCLN_OK;
	err->offset = -1;
	err->msg[0] = '\0';
}
