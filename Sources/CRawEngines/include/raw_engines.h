// The engine comparison's raw C engines: the same work per pod as the Swift classes of LabEngines' swift-direct
// implementation (DirectSQLitePods, DirectLMDBPods), written in C, so the comparison has a floor with no Swift in it.
//
// A pod is materialised as a `stacklab_pod`: its strings copied into memory it owns (malloc), as Swift's PodRow
// owns its strings, so reading a row costs what building a value of it costs in C. Every function returns 0 or the
// engine's error code (SQLite result code, LMDB return code); `*_message` describes the last one.
#ifndef STACKLAB_RAW_ENGINES_H
#define STACKLAB_RAW_ENGINES_H

#include <stddef.h>
#include <stdint.h>

/// A pod's values with its primary key; a null string is a NULL pointer.
typedef struct stacklab_pod {
    int64_t id;
    char *name;
    char *version;
    char *authors;
    char *homepage;
    char *license;
    char *summary;
    int64_t downloads;
    double updated;
} stacklab_pod;

/// PodRow.checksum: the strings' lengths, the downloads and the truncated update time, added with wrap-around.
int64_t stacklab_pod_checksum(const stacklab_pod *pod);
/// Frees the strings of `count` pods, then the array.
void stacklab_pods_free(stacklab_pod *pods, size_t count);

// MARK: - SQLite

typedef struct stacklab_raw_sqlite stacklab_raw_sqlite;

/// Opens the existing file at `path` (the SQLite store created its ZPOD table), WAL, `PRAGMA synchronous` set to
/// `synchronous` (FULL, NORMAL or OFF). On failure `*out` may still hold a handle to close, for its message.
int stacklab_raw_sqlite_open(const char *path, const char *synchronous, stacklab_raw_sqlite **out);
void stacklab_raw_sqlite_close(stacklab_raw_sqlite *db);
const char *stacklab_raw_sqlite_message(stacklab_raw_sqlite *db);
/// Inserts `count` pods in one transaction.
int stacklab_raw_sqlite_insert(stacklab_raw_sqlite *db, const stacklab_pod *pods, size_t count);
/// Every pod, every value, into a new array (`*pods`, `*count`; free with stacklab_pods_free); `*checksum` their sum.
int stacklab_raw_sqlite_fetch_all(stacklab_raw_sqlite *db, stacklab_pod **pods, size_t *count, int64_t *checksum);
/// Prepares the per-lookup statement (untimed) for stacklab_raw_sqlite_fetch_by_id with `per_lookup`.
int stacklab_raw_sqlite_prepare_lookups(stacklab_raw_sqlite *db);
/// Reads each key's pod, every value: in one transaction, or with `per_lookup` each in SQLite's implicit read
/// transaction of its own (the prepared statement stepped and reset). SQLITE_NOTFOUND when a key has no pod.
int stacklab_raw_sqlite_fetch_by_id(
    stacklab_raw_sqlite *db, const int64_t *keys, size_t count, int per_lookup, int64_t *checksum);
/// The first `limit` pods by name, ties by primary key.
int stacklab_raw_sqlite_fetch_sorted(stacklab_raw_sqlite *db, int64_t limit, int64_t *checksum);
/// Reads the pods of `keys` into `pods` (an array of `count` the caller owns; free its strings with the pods).
int stacklab_raw_sqlite_load(stacklab_raw_sqlite *db, const int64_t *keys, size_t count, stacklab_pod *pods);
/// Adds one to the downloads and the update time of each pod and writes them (and Z_OPT + 1) in one transaction.
int stacklab_raw_sqlite_update(stacklab_raw_sqlite *db, stacklab_pod *pods, size_t count);
/// The pods with more than `downloads` downloads.
int stacklab_raw_sqlite_count(stacklab_raw_sqlite *db, int64_t downloads, int64_t *count);

// MARK: - LMDB

typedef struct stacklab_raw_lmdb stacklab_raw_lmdb;

/// Opens (creating) the environment at `path` with the LMDB store's flags and `sync_flags` (0, MDB_NOMETASYNC or
/// MDB_NOSYNC), and its rows, byName and unique databases.
int stacklab_raw_lmdb_open(const char *path, unsigned int sync_flags, stacklab_raw_lmdb **out);
void stacklab_raw_lmdb_close(stacklab_raw_lmdb *db);
/// Inserts `count` pods in one write transaction: the row, the byName entry, the (name, version) claim.
int stacklab_raw_lmdb_insert(stacklab_raw_lmdb *db, const stacklab_pod *pods, size_t count);
int stacklab_raw_lmdb_fetch_all(stacklab_raw_lmdb *db, stacklab_pod **pods, size_t *count, int64_t *checksum);
/// Begins and resets the read transaction the per-lookup reads renew (untimed).
int stacklab_raw_lmdb_prepare_lookups(stacklab_raw_lmdb *db);
/// Reads each key's pod in one read transaction, or with `per_lookup` the kept transaction renewed and reset
/// around each. MDB_NOTFOUND when a key has no pod.
int stacklab_raw_lmdb_fetch_by_id(
    stacklab_raw_lmdb *db, const int64_t *keys, size_t count, int per_lookup, int64_t *checksum);
int stacklab_raw_lmdb_fetch_sorted(stacklab_raw_lmdb *db, int64_t limit, int64_t *checksum);
int stacklab_raw_lmdb_load(stacklab_raw_lmdb *db, const int64_t *keys, size_t count, stacklab_pod *pods);
int stacklab_raw_lmdb_update(stacklab_raw_lmdb *db, stacklab_pod *pods, size_t count);
int stacklab_raw_lmdb_count(stacklab_raw_lmdb *db, int64_t downloads, int64_t *count);

#endif
