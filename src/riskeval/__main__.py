from riskeval.cli.main import main

main()
