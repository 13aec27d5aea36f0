/// The first `limit` elements of a strict total order, kept while the elements arrive: a max-heap whose root is
/// the worst element kept, the one a better one replaces. A first screen of 50 out of 10,000 matches then costs
/// about m comparisons, not m log m. Every call must pass the same order.
struct BoundedTopHeap<Element> {
    let limit: Int
    private var heap: [Element] = []

    /// An empty heap for the first `limit` elements.
    init(limit: Int) {
        self.limit = limit
        heap.reserveCapacity(limit)
    }

    /// Keeps `element` if it is among the first `limit` so far under `precedes`.
    mutating func offer(_ element: Element, by precedes: (Element, Element) -> Bool) {
        if heap.count < limit {
            heap.append(element)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(heap[parent], heap[child]) else { break }
                heap.swapAt(parent, child)
                child = parent
            }
        } else if let worst = heap.first, precedes(element, worst) {
            heap[0] = element
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var largest = parent
                if left < heap.count, precedes(heap[largest], heap[left]) { largest = left }
                if right < heap.count, precedes(heap[largest], heap[right]) { largest = right }
                if largest == parent { break }
                heap.swapAt(parent, largest)
                parent = largest
            }
        }
    }

    /// The kept elements in order.
    func sorted(by precedes: (Element, Element) -> Bool) -> [Element] { heap.sorted(by: precedes) }
}
