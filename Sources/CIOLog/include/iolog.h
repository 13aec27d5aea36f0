// The I/O recorder of `stacklab crash-test --power-loss`: a library preloaded (LD_PRELOAD) into a save loop, so
// every write, sync and rename the store's engine makes under one folder is logged with its offset and bytes.
//
// It exports nothing to call: it replaces libc's file functions (open, write, pwrite, writev, pwritev, lseek,
// ftruncate, fallocate, fsync, fdatasync, msync, mmap, rename, unlink, close and their 64-bit and fortified names)
// and calls the real ones. It is configured by the environment of the process it is preloaded into:
//
//   STACKLAB_IOLOG       the log's path; the bytes written go to the same path plus ".data". Unset: the library
//                        records nothing and only passes each call through.
//   STACKLAB_IOLOG_DIR   the folder watched: only files under it (and the folder itself) are logged.
//   STACKLAB_IOLOG_ACK   a file whose writes are the process's acknowledgements (a save loop's journal): they are
//                        logged as `ack` events, the moment the process told its user a save was done.
//
// The log's format is described in LabReliability's IOLog.swift, which reads it.
#ifndef STACKLAB_IOLOG_H
#define STACKLAB_IOLOG_H

/// The version of the log format this library writes (its first line: `stacklab-iolog 1`).
#define STACKLAB_IOLOG_FORMAT 1

#endif
