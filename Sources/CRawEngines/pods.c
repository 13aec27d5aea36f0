// What both raw engines share: a pod's checksum and freeing materialised pods.
#include "raw_engines.h"

#include <stdlib.h>
#include <string.h>

static int64_t length(const char *text) { return text ? (int64_t)strlen(text) : 0; }

int64_t stacklab_pod_checksum(const stacklab_pod *pod) {
    // Unsigned arithmetic: PodRow.checksum adds with wrap-around (&+), which signed overflow in C is not.
    uint64_t sum = (uint64_t)length(pod->name) + (uint64_t)length(pod->version) + (uint64_t)length(pod->authors)
        + (uint64_t)length(pod->homepage) + (uint64_t)length(pod->license) + (uint64_t)length(pod->summary)
        + (uint64_t)pod->downloads + (uint64_t)(int64_t)pod->updated;
    return (int64_t)sum;
}

void stacklab_pods_free(stacklab_pod *pods, size_t count) {
    if (!pods) return;
    for (size_t index = 0; index < count; index++) {
        stacklab_pod *pod = &pods[index];
        free(pod->name);
        free(pod->version);
        free(pod->authors);
        free(pod->homepage);
        free(pod->license);
        free(pod->summary);
    }
    free(pods);
}
