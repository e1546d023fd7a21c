//! Integration tests of the service over HTTP against a real PostgreSQL.

mod accounts;
mod deadlines;
mod errors;
mod matches;
mod operations;
mod support;
