// Pods through liblmdb's C API, in C: the same databases, row format and transactions as RawLMDBPods.swift.
#include "raw_engines.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

struct stacklab_raw_lmdb {
    MDB_env *env;
    MDB_dbi rows, by_name, unique;
    MDB_txn *lookup;
    // The encoding buffers, kept across calls as the Swift side keeps its arrays' capacity.
    unsigned char *buffer;
    size_t capacity;
};

// MARK: - The LMDB store's row format (RawLMDBRow.swift)

// Makes room for `more` bytes after `used` in the engine's buffer.
static unsigned char *reserve(stacklab_raw_lmdb *db, size_t used, size_t more) {
    if (used + more > db->capacity) {
        db->capacity = (used + more) * 2;
        db->buffer = realloc(db->buffer, db->capacity);
    }
    return db->buffer + used;
}

static size_t put_varint(stacklab_raw_lmdb *db, size_t used, uint64_t value) {
    unsigned char *out = reserve(db, used, 10);
    size_t written = 0;
    while (value >= 0x80) {
        out[written++] = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    out[written++] = (unsigned char)value;
    return used + written;
}

static size_t put_string(stacklab_raw_lmdb *db, size_t used, const char *text) {
    if (!text) {
        *reserve(db, used, 1) = 0;
        return used + 1;
    }
    size_t length = strlen(text);
    *reserve(db, used, 1) = 6;
    used = put_varint(db, used + 1, length);
    memcpy(reserve(db, used, length), text, length);
    return used + length;
}

// Encodes `pod` into the engine's buffer; returns its length.
static size_t encode(stacklab_raw_lmdb *db, const stacklab_pod *pod) {
    unsigned char *header = reserve(db, 0, 3);
    header[0] = 1;
    header[1] = 1;
    header[2] = 0;
    size_t used = put_varint(db, 3, 1);
    used = put_varint(db, used, 8);
    used = put_string(db, used, pod->name);
    used = put_string(db, used, pod->version);
    used = put_string(db, used, pod->authors);
    used = put_string(db, used, pod->homepage);
    used = put_string(db, used, pod->license);
    used = put_string(db, used, pod->summary);
    *reserve(db, used, 1) = 1;
    uint64_t zigzag = ((uint64_t)pod->downloads << 1) ^ (uint64_t)(pod->downloads >> 63);
    used = put_varint(db, used + 1, zigzag);
    unsigned char *tail = reserve(db, used, 9);
    tail[0] = 2;
    uint64_t bits;
    memcpy(&bits, &pod->updated, 8);
    for (int byte = 0; byte < 8; byte++) tail[1 + byte] = (unsigned char)(bits >> (8 * byte));
    return used + 9;
}

typedef struct reader {
    const unsigned char *bytes;
    size_t count, position;
} reader;

static uint64_t get_varint(reader *r) {
    uint64_t result = 0;
    unsigned shift = 0;
    while (r->position < r->count) {
        unsigned char byte = r->bytes[r->position++];
        result |= (uint64_t)(byte & 0x7f) << shift;
        if (byte < 0x80) break;
        shift += 7;
    }
    return result;
}

static char *get_string(reader *r) {
    if (r->position >= r->count || r->bytes[r->position] != 6) {
        if (r->position < r->count) r->position++;
        return NULL;
    }
    r->position++;
    size_t length = (size_t)get_varint(r);
    if (length > r->count - r->position) length = r->count - r->position;
    char *text = malloc(length + 1);
    memcpy(text, r->bytes + r->position, length);
    text[length] = 0;
    r->position += length;
    return text;
}

static void skip_string(reader *r) {
    if (r->position >= r->count) return;
    if (r->bytes[r->position++] == 6) r->position += (size_t)get_varint(r);
}

static int64_t get_integer(reader *r) {
    if (r->position >= r->count || r->bytes[r->position] != 1) return 0;
    r->position++;
    uint64_t zigzag = get_varint(r);
    return (int64_t)(zigzag >> 1) ^ -(int64_t)(zigzag & 1);
}

static double get_double(reader *r) {
    if (r->position + 9 > r->count || r->bytes[r->position] != 2) return 0;
    uint64_t bits = 0;
    for (int byte = 0; byte < 8; byte++) bits |= (uint64_t)r->bytes[r->position + 1 + byte] << (8 * byte);
    r->position += 9;
    double value;
    memcpy(&value, &bits, 8);
    return value;
}

static void decode(int64_t id, const MDB_val *value, stacklab_pod *pod) {
    reader r = {value->mv_data, value->mv_size, 3};
    get_varint(&r);
    get_varint(&r);
    pod->id = id;
    pod->name = get_string(&r);
    pod->version = get_string(&r);
    pod->authors = get_string(&r);
    pod->homepage = get_string(&r);
    pod->license = get_string(&r);
    pod->summary = get_string(&r);
    pod->downloads = get_integer(&r);
    pod->updated = get_double(&r);
}

static uint64_t big_endian(uint64_t value) { return __builtin_bswap64(value); }

static int64_t primary_key(const MDB_val *key) {
    uint64_t big;
    memcpy(&big, key->mv_data, 8);
    return (int64_t)big_endian(big);
}

// MARK: - Transactions

int stacklab_raw_lmdb_open(const char *path, unsigned int sync_flags, stacklab_raw_lmdb **out) {
    stacklab_raw_lmdb *db = calloc(1, sizeof *db);
    *out = db;
    int rc = mdb_env_create(&db->env);
    if (rc) return rc;
    mdb_env_set_maxdbs(db->env, 4);
    mdb_env_set_mapsize(db->env, (size_t)1 << 32);
    if ((rc = mdb_env_open(db->env, path, MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD | sync_flags, 0644))) return rc;
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(db->env, NULL, 0, &txn))) return rc;
    if ((rc = mdb_dbi_open(txn, "rows", MDB_CREATE, &db->rows)) || (rc = mdb_dbi_open(txn, "byName", MDB_CREATE, &db->by_name))
        || (rc = mdb_dbi_open(txn, "unique", MDB_CREATE, &db->unique))) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

void stacklab_raw_lmdb_close(stacklab_raw_lmdb *db) {
    if (!db) return;
    if (db->lookup) mdb_txn_abort(db->lookup);
    if (db->env) mdb_env_close(db->env);
    free(db->buffer);
    free(db);
}

int stacklab_raw_lmdb_insert(stacklab_raw_lmdb *db, const stacklab_pod *pods, size_t count) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(db->env, NULL, 0, &txn);
    if (rc) return rc;
    // The index keys are built in a second buffer: the first holds the row.
    size_t key_capacity = 256;
    unsigned char *key = malloc(key_capacity);
    for (size_t index = 0; index < count && !rc; index++) {
        const stacklab_pod *pod = &pods[index];
        uint64_t big = big_endian((uint64_t)pod->id);
        MDB_val k = {8, &big};
        MDB_val row = {encode(db, pod), db->buffer};
        if ((rc = mdb_put(txn, db->rows, &k, &row, 0))) break;
        size_t name = strlen(pod->name), version = strlen(pod->version);
        if (name + version + 9 > key_capacity) {
            key_capacity = (name + version + 9) * 2;
            key = realloc(key, key_capacity);
        }
        memcpy(key, pod->name, name);
        key[name] = 0;
        memcpy(key + name + 1, pod->version, version);
        MDB_val claim = {name + 1 + version, key};
        if ((rc = mdb_put(txn, db->unique, &claim, &k, MDB_NOOVERWRITE))) break;
        memcpy(key + name + 1, &big, 8);
        MDB_val entry = {name + 9, key};
        MDB_val empty = {0, NULL};
        rc = mdb_put(txn, db->by_name, &entry, &empty, 0);
    }
    free(key);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

// A read-only transaction with a cursor over `dbi`; on failure nothing is left open.
static int open_read_cursor(stacklab_raw_lmdb *db, MDB_dbi dbi, MDB_txn **txn, MDB_cursor **cursor) {
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, txn);
    if (rc) return rc;
    if ((rc = mdb_cursor_open(*txn, dbi, cursor))) mdb_txn_abort(*txn);
    return rc;
}

int stacklab_raw_lmdb_fetch_all(stacklab_raw_lmdb *db, stacklab_pod **pods, size_t *count, int64_t *checksum) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    int rc = open_read_cursor(db, db->rows, &txn, &cursor);
    if (rc) return rc;
    size_t capacity = 0, used = 0;
    stacklab_pod *rows = NULL;
    uint64_t sum = 0;
    MDB_val key, value;
    for (rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST); rc == MDB_SUCCESS;
         rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)) {
        if (used == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            rows = realloc(rows, capacity * sizeof *rows);
        }
        decode(primary_key(&key), &value, &rows[used]);
        sum += (uint64_t)stacklab_pod_checksum(&rows[used]);
        used++;
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    *pods = rows;
    *count = used;
    *checksum = (int64_t)sum;
    return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

int stacklab_raw_lmdb_prepare_lookups(stacklab_raw_lmdb *db) {
    if (db->lookup) return MDB_SUCCESS;
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &db->lookup);
    if (rc) {
        db->lookup = NULL;
        return rc;
    }
    mdb_txn_reset(db->lookup);
    return MDB_SUCCESS;
}

// One row read by primary key, materialised, folded into `sum` and dropped.
static int get(stacklab_raw_lmdb *db, MDB_txn *txn, int64_t id, uint64_t *sum) {
    uint64_t big = big_endian((uint64_t)id);
    MDB_val key = {8, &big}, value;
    int rc = mdb_get(txn, db->rows, &key, &value);
    if (rc) return rc;
    stacklab_pod pod;
    decode(id, &value, &pod);
    *sum += (uint64_t)stacklab_pod_checksum(&pod);
    free(pod.name);
    free(pod.version);
    free(pod.authors);
    free(pod.homepage);
    free(pod.license);
    free(pod.summary);
    return MDB_SUCCESS;
}

int stacklab_raw_lmdb_fetch_by_id(
    stacklab_raw_lmdb *db, const int64_t *keys, size_t count, int per_lookup, int64_t *checksum) {
    uint64_t sum = 0;
    int rc = MDB_SUCCESS;
    if (per_lookup) {
        for (size_t index = 0; index < count && !rc; index++) {
            if ((rc = mdb_txn_renew(db->lookup))) break;
            rc = get(db, db->lookup, keys[index], &sum);
            mdb_txn_reset(db->lookup);
        }
    } else {
        MDB_txn *txn;
        if ((rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn))) return rc;
        for (size_t index = 0; index < count && !rc; index++) rc = get(db, txn, keys[index], &sum);
        mdb_txn_abort(txn);
    }
    *checksum = (int64_t)sum;
    return rc;
}

int stacklab_raw_lmdb_fetch_sorted(stacklab_raw_lmdb *db, int64_t limit, int64_t *checksum) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    int rc = open_read_cursor(db, db->by_name, &txn, &cursor);
    if (rc) return rc;
    // The byName index in key order (name, then big-endian primary key), each row read by its key.
    uint64_t sum = 0;
    int64_t read = 0;
    MDB_val key, value;
    for (rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST); rc == MDB_SUCCESS && read < limit;
         rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT), read++) {
        uint64_t big;
        memcpy(&big, (const unsigned char *)key.mv_data + key.mv_size - 8, 8);
        if ((rc = get(db, txn, (int64_t)big_endian(big), &sum))) break;
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    *checksum = (int64_t)sum;
    return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

int stacklab_raw_lmdb_load(stacklab_raw_lmdb *db, const int64_t *keys, size_t count, stacklab_pod *pods) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn);
    if (rc) return rc;
    for (size_t index = 0; index < count && !rc; index++) {
        uint64_t big = big_endian((uint64_t)keys[index]);
        MDB_val key = {8, &big}, value;
        if (!(rc = mdb_get(txn, db->rows, &key, &value))) decode(keys[index], &value, &pods[index]);
    }
    mdb_txn_abort(txn);
    return rc;
}

int stacklab_raw_lmdb_update(stacklab_raw_lmdb *db, stacklab_pod *pods, size_t count) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(db->env, NULL, 0, &txn);
    if (rc) return rc;
    for (size_t index = 0; index < count && !rc; index++) {
        stacklab_pod *pod = &pods[index];
        pod->downloads += 1;
        pod->updated += 1;
        uint64_t big = big_endian((uint64_t)pod->id);
        MDB_val key = {8, &big};
        MDB_val row = {encode(db, pod), db->buffer};
        rc = mdb_put(txn, db->rows, &key, &row, 0);
    }
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

int stacklab_raw_lmdb_count(stacklab_raw_lmdb *db, int64_t downloads, int64_t *count) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    int rc = open_read_cursor(db, db->rows, &txn, &cursor);
    if (rc) return rc;
    int64_t found = 0;
    MDB_val key, value;
    for (rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST); rc == MDB_SUCCESS;
         rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)) {
        // Only the downloads, the strings skipped undecoded (RawLMDBRow.downloads).
        reader r = {value.mv_data, value.mv_size, 3};
        get_varint(&r);
        get_varint(&r);
        for (int field = 0; field < 6; field++) skip_string(&r);
        if (get_integer(&r) > downloads) found++;
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    *count = found;
    return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}
