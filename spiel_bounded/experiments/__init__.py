"""The epsilon sweep (issue 16): what bounding buys, measured on committed position sets.

`positions`: seeded position sets; `tasks`: one search of one position at one epsilon and its
record; `config`: the sweep's TOML config; `runner`: the resumable run (records.jsonl,
sweep.json, a lock, process / Dask / inline executors); `report`: Markdown tables and PNG plots.
`scripts/epsilon_sweep.py` is the command line.
"""
