/* i18n.h - gettext glue shared by every module with user-facing text.
 * Owns the _() and N_() macros; nothing else. */
#ifndef AB_I18N_H
#define AB_I18N_H

#include <libintl.h>
#include <locale.h>

#define _(s) gettext(s)
#define N_(s) (s)

#endif
