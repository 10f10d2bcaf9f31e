// The harness the tests share with livepush-bench (nginx, namespaces, background processes, the
// process tree, external tools): a test that imports TestSupport sees it too.
@_exported import Harness
