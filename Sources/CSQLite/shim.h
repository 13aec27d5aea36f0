#include <sqlite3.h>

/// SQLITE_TRANSIENT as a function: the macro is a cast Swift cannot import.
static inline sqlite3_destructor_type objectstack_sqlite_transient(void) { return SQLITE_TRANSIENT; }
