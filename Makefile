# The two set-up commands of the README. Both install their own prerequisites.
.PHONY: run test setup

setup:
	scripts/setup.sh

# The app: a tray app with a display, headless servers without one.
run: setup
	cargo run -p almanac --locked -- $(ARGS)

test: setup
	scripts/test.sh
