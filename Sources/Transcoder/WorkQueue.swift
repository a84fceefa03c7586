import Foundation

/// A bounded FIFO between threads: producers never wait (a full queue refuses), the consumer blocks.
final class WorkQueue<Element: Sendable>: @unchecked Sendable {
    /// Most elements held; `offer(_:force:)` with `force` may exceed it for control messages.
    let capacity: Int
    // Guards `items`, `head` and `closed`; every access holds it.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var refusals = 0

    /// A queue of at most `capacity` elements.
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Appends `element` unless the queue is full (then returns false); `force` always appends.
    @discardableResult
    func offer(_ element: Element, force: Bool = false) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard force || items.count - head < capacity else {
            refusals += 1
            return false
        }
        items.append(element)
        condition.signal()
        return true
    }

    /// Waits for and removes the oldest element.
    func take() -> Element {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count { condition.wait() }
        let element = items[head]
        head += 1
        // Compact once the consumed prefix dominates, keeping takes amortised O(1).
        if head > 32 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Elements refused so far because the queue was full (the load-shedding gauge watches it grow).
    var refused: Int {
        condition.lock()
        defer { condition.unlock() }
        return refusals
    }

    /// Elements waiting.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count - head
    }
}
