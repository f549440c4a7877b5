'use strict';
require('../layers-off.cjs')('metrics');
