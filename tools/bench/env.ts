// Loaded before the server's modules: the logger reads LOG_LEVEL and the configuration the rate limits
// when they load. The access log would drown the table, and the limits would refuse the load.
process.env.LOG_LEVEL ??= 'warn';
process.env.RATE_LIMIT_PER_MINUTE ??= '1000000000';
process.env.RATE_LIMIT_BURST_PER_SECOND ??= '1000000000';
process.env.RATE_LIMIT_USER_PER_MINUTE ??= '1000000000';
