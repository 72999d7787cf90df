"""`python -m compilelint`: the same as the `compilelint` command."""

from compilelint.cli import run

if __name__ == "__main__":
    run()
