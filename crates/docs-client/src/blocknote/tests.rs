mod smoke {}
