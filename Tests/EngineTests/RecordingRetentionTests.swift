import Foundation
import Testing
import TestSupport
@testable import Engine

/// What a retention sweep deletes beside `cam.mp4`: the recording's own older files (`cam-NNN.mp4`,
/// segments and the continuations a size change starts) past the retention, never the newest, never
/// the plain file, and never a file that only starts like them: the user's own, or another
/// recording's (`cam-low.mp4` beside `cam.mp4` numbers its segments `cam-low-NNN.mp4`).
@Suite struct RecordingRetentionTests {
    @Test func deletesOnlyTheRecordingsOwnOlderNumberedFiles() throws {
        let directory = try TemporaryDirectory()
        let now = Date()
        let names = ["cam.mp4", "cam-000.mp4", "cam-001.mp4", "cam-002.mp4", "cam-edited.mp4", "cam-low-000.mp4", "cam-001.mp4.bak", "cam-.mp4", "camera-000.mp4", "other.mp4"]
        for name in names {
            let path = directory.file(name)
            #expect(FileManager.default.createFile(atPath: path, contents: Data([0])))
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-3600)], ofItemAtPath: path)
        }
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-10)], ofItemAtPath: directory.file("cam-001.mp4"))
        let deleted = RecordingRetention.sweep(path: directory.file("cam.mp4"), retentionSeconds: 60, now: now)
        #expect(deleted.map { URL(fileURLWithPath: $0).lastPathComponent } == ["cam-000.mp4"], "\(deleted)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == names.filter { $0 != "cam-000.mp4" }.sorted(), "\(left)")
    }
}
