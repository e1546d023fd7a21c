# Build: docker build -t posthorn .
# Run:   docker run -p 8080:8080 -e DATABASE_URL=postgres://user:pass@db/posthorn \
#            -e POSTHORN_JWT_SECRET=... -e POSTHORN_PUBLIC_URL=https://play.example posthorn
# The toolchain of Cargo.toml's rust-version: Cargo.lock needs no newer.
FROM rust:1.95-slim-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq-dev libssl-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin posthorn

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq5 libssl3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /var/lib/posthorn posthorn
COPY --from=build /src/target/release/posthorn /usr/local/bin/posthorn
USER posthorn
WORKDIR /var/lib/posthorn
# In a container the database is always a real server: set DATABASE_URL.
ENV POSTHORN_BIND=0.0.0.0:8080 \
    POSTHORN_DATA_DIR=/var/lib/posthorn \
    RUST_LOG=info
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/posthorn"]
