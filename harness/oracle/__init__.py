"""SGLang's own verdicts through the oracle (``oracle``), and the fidelity harness built on them (``fidelity``)."""
