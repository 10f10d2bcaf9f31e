import Testing
import MediaCore

/// ``ThreadName``: what the kernel will keep of a thread's name (15 bytes of UTF-8).
@Suite struct ThreadNameTests {
    @Test(arguments: [
        ("cap", "door", "cap:door"),
        ("mic", "", "mic"),
        ("enc", "1080p", "enc:1080p"),
        // 15 bytes exactly stay whole; a 16th is cut.
        ("mic", "garden-gate", "mic:garden-gate"),
        ("mic", "garden-gates", "mic:garden-gate"),
        // "ü" is two bytes: 15 bytes end after "d"; a "ü" on bytes 15 and 16 goes whole.
        ("cap", "küche-süd-1", "cap:küche-süd"),
        ("cap", "gartenhausübel", "cap:gartenhaus"),
        ("mic", "haustür", "mic:haustür"),
    ])
    func namesAreCutToFifteenBytesBetweenCharacters(role: String, subject: String, expected: String) {
        let name = ThreadName(role: role, for: subject)
        #expect(name.description == expected)
        #expect(name.description.utf8.count <= ThreadName.limitBytes)
    }

    @Test func aCutNeverSplitsAMultibyteCharacter() {
        // Byte 15 falls inside the third "€" (3 bytes each after "cap:" 4 bytes: 4 + 3·3 = 13, the fourth would end at 16).
        let name = ThreadName("cap:€€€€€")
        #expect(name.description == "cap:€€€")
        #expect(String(decoding: Array(name.description.utf8), as: UTF8.self) == name.description)
    }
}
