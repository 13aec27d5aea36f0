// Pods through libsqlite3's C API, in C: the same statements, transactions and reads as RawSQLitePods.swift.
#include "raw_engines.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stacklab_raw_sqlite {
    sqlite3 *handle;
    sqlite3_stmt *lookup;
};

#define COLUMNS "Z_PK, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, ZUPDATED"

static char *copy_text(sqlite3_stmt *statement, int column) {
    const unsigned char *text = sqlite3_column_text(statement, column);
    if (!text) return NULL;
    int size = sqlite3_column_bytes(statement, column);
    char *copy = malloc((size_t)size + 1);
    memcpy(copy, text, (size_t)size + 1);
    return copy;
}

// The current row of a `SELECT COLUMNS` statement; NOT NULL columns read as empty strings when null, as Swift's do.
static void read_row(sqlite3_stmt *statement, stacklab_pod *pod) {
    pod->id = sqlite3_column_int64(statement, 0);
    pod->name = copy_text(statement, 1);
    pod->version = copy_text(statement, 2);
    pod->authors = copy_text(statement, 3);
    pod->homepage = copy_text(statement, 4);
    pod->license = copy_text(statement, 5);
    pod->summary = copy_text(statement, 6);
    pod->downloads = sqlite3_column_int64(statement, 7);
    pod->updated = sqlite3_column_double(statement, 8);
}

// A row read, folded into the checksum and dropped, as a Swift PodRow built and released is.
static int64_t read_checksum(sqlite3_stmt *statement) {
    stacklab_pod pod;
    read_row(statement, &pod);
    int64_t checksum = stacklab_pod_checksum(&pod);
    free(pod.name);
    free(pod.version);
    free(pod.authors);
    free(pod.homepage);
    free(pod.license);
    free(pod.summary);
    return checksum;
}

static int exec(stacklab_raw_sqlite *db, const char *sql) { return sqlite3_exec(db->handle, sql, NULL, NULL, NULL); }

static int prepare(stacklab_raw_sqlite *db, const char *sql, sqlite3_stmt **statement) {
    return sqlite3_prepare_v2(db->handle, sql, -1, statement, NULL);
}

static void bind_text(sqlite3_stmt *statement, int index, const char *text) {
    if (text) sqlite3_bind_text(statement, index, text, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(statement, index);
}

int stacklab_raw_sqlite_open(const char *path, const char *synchronous, stacklab_raw_sqlite **out) {
    stacklab_raw_sqlite *db = calloc(1, sizeof *db);
    *out = db;
    int rc = sqlite3_open_v2(path, &db->handle, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) return rc;
    if ((rc = exec(db, "PRAGMA journal_mode = WAL")) != SQLITE_OK) return rc;
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA synchronous = %s", synchronous);
    return exec(db, pragma);
}

void stacklab_raw_sqlite_close(stacklab_raw_sqlite *db) {
    if (!db) return;
    sqlite3_finalize(db->lookup);
    sqlite3_close_v2(db->handle);
    free(db);
}

const char *stacklab_raw_sqlite_message(stacklab_raw_sqlite *db) {
    return db && db->handle ? sqlite3_errmsg(db->handle) : "out of memory";
}

int stacklab_raw_sqlite_insert(stacklab_raw_sqlite *db, const stacklab_pod *pods, size_t count) {
    sqlite3_stmt *insert = NULL;
    int rc = prepare(
        db,
        "INSERT INTO ZPOD (Z_PK, Z_ENT, Z_OPT, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, "
        "ZUPDATED) VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)",
        &insert);
    if (rc != SQLITE_OK) return rc;
    if ((rc = exec(db, "BEGIN IMMEDIATE")) != SQLITE_OK) goto done;
    for (size_t index = 0; index < count; index++) {
        const stacklab_pod *pod = &pods[index];
        sqlite3_bind_int64(insert, 1, pod->id);
        bind_text(insert, 2, pod->name);
        bind_text(insert, 3, pod->version);
        bind_text(insert, 4, pod->authors);
        bind_text(insert, 5, pod->homepage);
        bind_text(insert, 6, pod->license);
        bind_text(insert, 7, pod->summary);
        sqlite3_bind_int64(insert, 8, pod->downloads);
        sqlite3_bind_double(insert, 9, pod->updated);
        if ((rc = sqlite3_step(insert)) != SQLITE_DONE) {
            exec(db, "ROLLBACK");
            goto done;
        }
        sqlite3_reset(insert);
    }
    rc = exec(db, "COMMIT");
done:
    sqlite3_finalize(insert);
    return rc;
}

int stacklab_raw_sqlite_fetch_all(stacklab_raw_sqlite *db, stacklab_pod **pods, size_t *count, int64_t *checksum) {
    sqlite3_stmt *select = NULL;
    int rc = prepare(db, "SELECT " COLUMNS " FROM ZPOD", &select);
    if (rc != SQLITE_OK) return rc;
    // Grown by doubling, as a Swift array appended to is.
    size_t capacity = 0, used = 0;
    stacklab_pod *rows = NULL;
    uint64_t sum = 0;
    while ((rc = sqlite3_step(select)) == SQLITE_ROW) {
        if (used == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            rows = realloc(rows, capacity * sizeof *rows);
        }
        read_row(select, &rows[used]);
        sum += (uint64_t)stacklab_pod_checksum(&rows[used]);
        used++;
    }
    sqlite3_finalize(select);
    *pods = rows;
    *count = used;
    *checksum = (int64_t)sum;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int stacklab_raw_sqlite_prepare_lookups(stacklab_raw_sqlite *db) {
    sqlite3_finalize(db->lookup);
    db->lookup = NULL;
    return prepare(db, "SELECT " COLUMNS " FROM ZPOD WHERE Z_PK = ?", &db->lookup);
}

// Each key bound, stepped and reset on `select`: with no transaction open, each step is a read transaction.
static int lookups(sqlite3_stmt *select, const int64_t *keys, size_t count, int64_t *checksum) {
    uint64_t sum = 0;
    for (size_t index = 0; index < count; index++) {
        sqlite3_bind_int64(select, 1, keys[index]);
        int rc = sqlite3_step(select);
        if (rc != SQLITE_ROW) {
            sqlite3_reset(select);
            return rc == SQLITE_DONE ? SQLITE_NOTFOUND : rc;
        }
        sum += (uint64_t)read_checksum(select);
        sqlite3_reset(select);
    }
    *checksum = (int64_t)sum;
    return SQLITE_OK;
}

int stacklab_raw_sqlite_fetch_by_id(
    stacklab_raw_sqlite *db, const int64_t *keys, size_t count, int per_lookup, int64_t *checksum) {
    if (per_lookup) return lookups(db->lookup, keys, count, checksum);
    sqlite3_stmt *select = NULL;
    int rc = prepare(db, "SELECT " COLUMNS " FROM ZPOD WHERE Z_PK = ?", &select);
    if (rc != SQLITE_OK) return rc;
    if ((rc = exec(db, "BEGIN")) == SQLITE_OK) {
        rc = lookups(select, keys, count, checksum);
        exec(db, "COMMIT");
    }
    sqlite3_finalize(select);
    return rc;
}

int stacklab_raw_sqlite_fetch_sorted(stacklab_raw_sqlite *db, int64_t limit, int64_t *checksum) {
    sqlite3_stmt *select = NULL;
    int rc = prepare(db, "SELECT " COLUMNS " FROM ZPOD ORDER BY ZNAME, Z_PK LIMIT ?", &select);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(select, 1, limit);
    uint64_t sum = 0;
    while ((rc = sqlite3_step(select)) == SQLITE_ROW) sum += (uint64_t)read_checksum(select);
    sqlite3_finalize(select);
    *checksum = (int64_t)sum;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int stacklab_raw_sqlite_load(stacklab_raw_sqlite *db, const int64_t *keys, size_t count, stacklab_pod *pods) {
    sqlite3_stmt *select = NULL;
    int rc = prepare(db, "SELECT " COLUMNS " FROM ZPOD WHERE Z_PK = ?", &select);
    if (rc != SQLITE_OK) return rc;
    for (size_t index = 0; index < count && rc == SQLITE_OK; index++) {
        sqlite3_bind_int64(select, 1, keys[index]);
        int step = sqlite3_step(select);
        if (step == SQLITE_ROW) read_row(select, &pods[index]);
        else rc = step == SQLITE_DONE ? SQLITE_NOTFOUND : step;
        sqlite3_reset(select);
    }
    sqlite3_finalize(select);
    return rc;
}

int stacklab_raw_sqlite_update(stacklab_raw_sqlite *db, stacklab_pod *pods, size_t count) {
    sqlite3_stmt *update = NULL;
    // The row version goes up as the store's does (optimistic locking), so both write the same columns.
    int rc = prepare(db, "UPDATE ZPOD SET ZDOWNLOADS = ?, ZUPDATED = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", &update);
    if (rc != SQLITE_OK) return rc;
    if ((rc = exec(db, "BEGIN IMMEDIATE")) != SQLITE_OK) goto done;
    for (size_t index = 0; index < count; index++) {
        stacklab_pod *pod = &pods[index];
        pod->downloads += 1;
        pod->updated += 1;
        sqlite3_bind_int64(update, 1, pod->downloads);
        sqlite3_bind_double(update, 2, pod->updated);
        sqlite3_bind_int64(update, 3, pod->id);
        if ((rc = sqlite3_step(update)) != SQLITE_DONE) {
            exec(db, "ROLLBACK");
            goto done;
        }
        sqlite3_reset(update);
    }
    rc = exec(db, "COMMIT");
done:
    sqlite3_finalize(update);
    return rc;
}

int stacklab_raw_sqlite_count(stacklab_raw_sqlite *db, int64_t downloads, int64_t *count) {
    sqlite3_stmt *select = NULL;
    int rc = prepare(db, "SELECT COUNT(*) FROM ZPOD WHERE ZDOWNLOADS > ?", &select);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(select, 1, downloads);
    rc = sqlite3_step(select);
    if (rc == SQLITE_ROW) {
        *count = sqlite3_column_int64(select, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(select);
    return rc;
}
