//! Integration tests of the service over HTTP against a real PostgreSQL.

mod accounts;
mod banqi;
mod challenges;
mod checkers_variants;
mod deadlines;
mod errors;
mod flipchess;
mod four_player_chess;
mod friends;
mod hardening;
mod headers;
mod janggi;
mod matches;
mod notifications;
mod operations;
mod push;
mod push_service;
mod ratings;
mod rematch;
mod schemas;
mod seeks;
mod smtp;
mod support;
mod web;
