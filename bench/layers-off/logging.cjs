'use strict';
require('../layers-off.cjs')('logging');
