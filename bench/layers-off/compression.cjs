'use strict';
require('../layers-off.cjs')('compression');
