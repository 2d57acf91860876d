/* error.c -- error codes and their messages. */
#include "pcln.h"

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
