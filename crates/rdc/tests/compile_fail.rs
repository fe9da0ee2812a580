//! What must not compile: path params that are no field of the args, missing
//! args, bodies and results of the wrong type, an `All` of a non-entity, args
//! that are not `Serialize`, entity options that clash or index no field, a
//! lazy field whose type does not hold the keys it names, a scalar field outside an entity or naming no `Scalar`.
//! Each case's message is kept beside it (`.stderr`);
//! `TRYBUILD=overwrite cargo test -p rdc --test compile_fail` rewrites them.
#![cfg(not(target_arch = "wasm32"))]

#[test]
fn typed_endpoints_refuse_what_cannot_work() {
    trybuild::TestCases::new().compile_fail("tests/compile_fail/*.rs");
}
