// Placeholder: replaced by the RTMP tests.
