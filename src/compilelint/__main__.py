"""`python -m compilelint`: the same as the `compilelint` command."""

from compilelint.cli import main

if __name__ == "__main__":
    main()
