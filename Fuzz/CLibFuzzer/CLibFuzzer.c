// Declarations only (include/CLibFuzzer.h); SwiftPM needs a source file to build a C target.
