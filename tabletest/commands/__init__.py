"""The commands: `tabletest` and each sub-command, above every stage (a command may use any stage; no stage
imports a command)."""
