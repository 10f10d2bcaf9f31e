// OpenSSL for livepush: libcrypto's one-shot HMAC for STUN MESSAGE-INTEGRITY today, and the DTLS
// transport (certificates, handshakes, SRTP key export) later. Swift cannot import OpenSSL's
// function-like macros or call its variadic functions: wrap those in `static inline` functions here.
#ifndef LIVEPUSH_COPENSSL_SHIM_H
#define LIVEPUSH_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
// DTLS (Sources/DTLS): macros over SSL_ctrl/BIO_ctrl and EVP_EC_gen, wrapped for Swift.
#include <openssl/ec.h>
#include <openssl/srtp.h>
static inline EVP_PKEY *livepush_EVP_EC_gen_P256(void) { return EVP_EC_gen("P-256"); }
static inline int livepush_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
static inline int livepush_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
static inline int livepush_DTLS_set_fixed_link_mtu(SSL *ssl, long mtu) { SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU); return (int)DTLS_set_link_mtu(ssl, mtu); }
static inline int livepush_DTLSv1_get_timeout(SSL *ssl, struct timeval *left) { return (int)DTLSv1_get_timeout(ssl, left); }
static inline int livepush_DTLSv1_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }
static inline int livepush_BIO_set_mem_eof_return(BIO *bio, int value) { return (int)BIO_set_mem_eof_return(bio, value); }
#endif
