"""The commands, on the floor above every stage (a command may use any stage; no stage imports a command).

`main.py` is the `tabletest` root: it knows each command by name and imports a command's module only when that
command runs (or its own help is asked). One module per command or command group (`render.py` holds `render`
and `kernels`, `write.py` `merge` and `schema`, `show.py` `show` and `gallery`, `vignettes.py`, `questions.py`,
`slurm.py`, `assets.py`, ...); the options they share (`options.py`), one example under each command's help
(`examples.py`) and the help display's fixes (`help_display.py`). `tabletest/cli.py` is the entry point that
the console script and `python -m tabletest.cli` run.
"""
