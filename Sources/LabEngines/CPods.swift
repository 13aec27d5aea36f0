import CRawEngines
import Foundation
import LabWorkloads

/// Pods as the raw C engines take and return them: an array of `stacklab_pod` whose strings it owns (copied in
/// from `PodRow`s, or materialised by a C read), freed with it.
/// - Note: Not thread-safe; one engine uses it from one thread.
final class CPods {
    /// The pods; nil when empty.
    private(set) var pods: UnsafeMutablePointer<stacklab_pod>?
    let count: Int

    /// Takes over an array a C read allocated (`stacklab_pods_free` frees it).
    init(taking pods: UnsafeMutablePointer<stacklab_pod>?, count: Int) {
        self.pods = pods
        self.count = count
    }

    /// `count` zeroed pods, for a C read to fill.
    convenience init(zeroed count: Int) {
        let pods = calloc(max(count, 1), MemoryLayout<stacklab_pod>.stride)?.assumingMemoryBound(to: stacklab_pod.self)
        self.init(taking: pods, count: count)
    }

    /// The rows copied into C strings, outside any clock: what a C program would hold before it inserts.
    convenience init(_ rows: [PodRow]) {
        self.init(zeroed: rows.count)
        for (index, row) in rows.enumerated() {
            pods![index] = stacklab_pod(
                id: row.id, name: strdup(row.name), version: strdup(row.version), authors: strdup(row.authors),
                homepage: row.homepage.map { strdup($0) }, license: row.license.map { strdup($0) },
                summary: row.summary.map { strdup($0) }, downloads: row.downloads, updated: row.updated)
        }
    }

    deinit { stacklab_pods_free(pods, count) }
}
