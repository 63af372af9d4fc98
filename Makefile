# The two set-up commands of the README. Both install their own prerequisites.
.PHONY: run test test-fast setup release check-install icons

setup:
	scripts/setup.sh

# The app: a tray app with a display, headless servers without one.
run: setup
	cargo run -p almanac --locked -- $(ARGS)

test: setup
	scripts/test.sh

# The inner loop (not the whole truth): the core crate's tests, then those
# named in ARGS (cargo-nextest options), e.g. ARGS="-p almanac-reminders".
test-fast:
	scripts/test-fast.sh $(ARGS)

# Release artefacts in artifacts/: the optimised binaries, the .deb and the
# AppImage, the .deb then checked by installing it into a scratch root and
# starting it headless. A full optimised build: not part of `make test`.
release: setup
	scripts/release.sh

# Installs artifacts/'s .deb into this system, starts Almanac from its menu
# entry in a throw-away desktop session, checks it, then purges the package.
# Changes the system (root or sudo), so only on demand: not in `make test`.
check-install:
	scripts/session.sh scripts/check-deb-install.sh artifacts/*.deb

# Every icon size from the one source image (commit the result).
icons:
	rm -rf target/icons && scripts/tauri.sh icon icons/almanac.svg -o target/icons
	cp target/icons/32x32.png target/icons/128x128.png target/icons/128x128@2x.png \
	   target/icons/icon.png target/icons/icon.icns target/icons/icon.ico icons/
