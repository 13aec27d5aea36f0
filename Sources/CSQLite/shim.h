#include <sqlite3.h>

/// SQLITE_TRANSIENT as a function: the macro is a cast Swift cannot import.
static inline sqlite3_destructor_type objectstack_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE) as a function: the call is variadic, which Swift cannot call.
/// A reader that should leave a file as it found it sets it: the last connection to a WAL file otherwise
/// checkpoints the WAL into the file and deletes it when it closes.
static inline int objectstack_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
