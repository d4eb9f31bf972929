"""`python -m tabletest.cli` and the `tabletest` console script (SLURM jobs run the former): the commands live in
`tabletest/commands/`."""

from tabletest.commands.main import app, main  # noqa: F401

if __name__ == "__main__":
    main()
