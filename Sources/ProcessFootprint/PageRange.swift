/// A page-aligned range of this process's address space, `[start, end)`.
struct PageRange: Equatable {
    var start: UInt
    var end: UInt

    var length: Int { Int(end - start) }
}
