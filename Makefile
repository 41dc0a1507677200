# vault: the two commands a newcomer needs, and a few more.
.PHONY: demo test deps test-deps build fixtures format docs

# Build vaulttool, create a demo vault with a few items in a temporary folder, inspect it.
demo:
	scripts/demo.sh

# Install what is missing, then run every test.
test: test-deps
	swift build --build-tests
	swift test --skip-build

deps:
	scripts/install-deps.sh

# The libraries, and the programs the tests drive (git, zsh, python3, script, time).
test-deps:
	scripts/install-test-deps.sh

# Release build of vaulttool, one file with the Swift runtime and libstdc++ linked in, laid out for
# a fast start, without symbols; it prints the path (scripts/build-release.sh; BENCHMARKS.md, issue 24).
build: deps
	scripts/build-release.sh

# Regenerate Fixtures/v1 (landed fixtures are frozen: only to add cases).
fixtures: deps
	swift run vault-fixturegen Fixtures/v1

# DocC catalogs of VaultFormat, VaultIO, VaultImport and VaultDelivery, into .build/docs (toolchain docc, no plugin).
docs:
	scripts/docs.sh

format:
	swift format --in-place --recursive Sources Tests Package.swift

# The public API against API/*.txt (CI); api-baseline rewrites them after a deliberate change.
.PHONY: api-check api-baseline
api-check:
	scripts/api-check.sh

api-baseline:
	scripts/api-check.sh --update

# Benchmarks, side by side with SQLCipher, KeePassXC, pykeepass and keyrings.cryptfile (BENCHMARKS.md).
.PHONY: bench bench-smoke
bench:
	scripts/bench.sh

# Our side only, tiny N, a few seconds after the build: keeps the suite from rotting (CI).
bench-smoke:
	scripts/bench.sh --smoke

# The vectors of Spec/ computed again with implementations that are not vault's (PyNaCl, OpenSSL
# through python3-cryptography, argon2-cffi, hashlib; scripts/check-vectors.py says which), and
# Fixtures/v3 read by a format-3 reader written in Python (scripts/check-fixtures-v3.py).
.PHONY: vectors
vectors:
	scripts/check-vectors.sh

# What CI checks, in this order: the README's test command, the Spec/ vectors with other
# implementations, the app-style tests and vaulttool
# each built from a package of their own (public API of VaultIO only), the public API against API/*.txt (make api-baseline after a
# deliberate change), docc --analyze (fails on any warning), the format lint, the fast part of
# every reliability suite (RELIABILITY.md), the release binary's checks and CLI tests
# (scripts/release-check.sh) and a smoke run of the benchmarks (BENCHMARKS.md).
# .ci/run installs the libraries and then runs this target, so the two cannot drift.
.PHONY: ci
ci: test
	scripts/check-vectors.sh
	scripts/outside-package.sh
	scripts/outside-cli.sh
	scripts/api-check.sh
	scripts/docs.sh
	swift format lint --strict --recursive Sources Tests
	scripts/reliability.sh --quick
	scripts/release-check.sh
	$(MAKE) secret-service-clients
	$(MAKE) bench-smoke

# vaulttool secret-service against real Secret Service clients (secret-tool, keyring,
# secretstorage, a DH-only client, git credential-libsecret with a real clone, docker), each on a
# private bus (Spec/secret-service.md), then the dbus-monitor traces of the same client runs
# against gnome-keyring and vaulttool compared (scripts/secret-service-traces.sh). The full run:
# scripts/secret-service-clients.sh --provider vaulttool.
.PHONY: secret-service-clients
secret-service-clients: deps
	swift build --product vaulttool
	scripts/install-secret-service-clients.sh >/dev/null
	scripts/secret-service-clients.sh --provider vaulttool --quick
	scripts/secret-service-traces.sh
