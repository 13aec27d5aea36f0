#include <lmdb.h>
#include <pthread.h>

/// MDB_val built from a pointer and a length (Swift cannot spell the struct's field order safely).
static inline MDB_val stacklab_mdb_val(const void *data, size_t size) {
    MDB_val value;
    value.mv_size = size;
    value.mv_data = (void *)data;
    return value;
}
